package dev.agentbox.sandbox;

import dev.agentbox.platform.body.JsonMembers;
import dev.agentbox.platform.body.NonBlank;
import jakarta.json.JsonArray;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * A secret of {@code workspace.secrets} the sandbox never holds, {@code {"value","brokerHosts"}},
 * read by {@link JsonMembers}: the value goes into a request header at the egress gateway (no NUL,
 * CR or LF), for at most {@value #MAX_HOSTS} hosts, each one exact host name ({@link
 * WorkspaceReader}); whether the policy lets the sandbox reach them is {@link SandboxSpecParser}'s.
 */
public record BrokeredSecretBody(
        @NotNull(message = "is required")
                @NonBlank(message = EnsureBody.EMPTY)
                @Pattern(
                        regexp = "[^\\x00\\r\\n]*",
                        message = "must be a non-empty header value (no NUL, CR or LF)")
                String value,
        @NotNull(message = AT_LEAST_ONE)
                @Size(min = 1, message = AT_LEAST_ONE)
                @Size(max = MAX_HOSTS, message = "names more than " + MAX_HOSTS + " hosts")
                JsonArray brokerHosts) {

    /** The most hosts one brokered secret may name. */
    static final int MAX_HOSTS = 16;

    static final String AT_LEAST_ONE = "must name at least one host";
}
