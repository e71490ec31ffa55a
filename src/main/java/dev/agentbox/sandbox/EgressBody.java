package dev.agentbox.sandbox;

import dev.agentbox.platform.body.JsonMembers;
import jakarta.json.JsonArray;

/**
 * An ensure body's {@code policy.egress}, read by {@link JsonMembers}; its entries, their number
 * and their uniqueness across both lists are {@link PolicyReader}'s.
 */
public record EgressBody(JsonArray allow, JsonArray deny) {}
