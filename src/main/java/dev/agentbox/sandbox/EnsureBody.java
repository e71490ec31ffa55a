package dev.agentbox.sandbox;

import dev.agentbox.platform.body.JsonMembers;
import dev.agentbox.platform.body.NonBlank;
import dev.agentbox.platform.body.Printable;
import jakarta.json.JsonObject;
import jakarta.validation.constraints.Size;

/**
 * The ensure body ({@code POST /sandboxes}, and a run's inline sandbox) as it arrives, read by
 * {@link JsonMembers} in this order: ids printable and short (they end up in log lines and 255-char
 * columns), then the nested objects, which {@link WorkspaceReader}, {@link PolicyReader} and {@link
 * LifecycleBody} read. {@link SandboxSpecParser} holds the rules between members (the image
 * allowlist, brokered secrets against the policy, {@code reuse: thread} needs a thread).
 */
public record EnsureBody(
        @NonBlank(message = EMPTY)
                @Size(max = MAX_ID, message = ID_TOO_LONG)
                @Printable(message = ID_UNPRINTABLE, withIndex = false)
                String definitionId,
        @NonBlank(message = EMPTY)
                @Size(max = MAX_ID, message = ID_TOO_LONG)
                @Printable(message = ID_UNPRINTABLE, withIndex = false)
                String provider,
        @NonBlank(message = EMPTY)
                @Size(max = 255, message = IMAGE)
                @Printable(message = IMAGE, withIndex = false)
                String image,
        @NonBlank(message = EMPTY)
                @Size(max = MAX_ID, message = ID_TOO_LONG)
                @Printable(message = ID_UNPRINTABLE, withIndex = false)
                String threadId,
        JsonObject workspace,
        JsonObject policy,
        JsonObject lifecycle) {

    /**
     * Ids are stored in 255-char columns and printed in log lines; 200 leaves room for prefixes.
     */
    static final int MAX_ID = 200;

    /** What every string member of the ensure body says when it is blank. */
    static final String EMPTY = "must not be empty";

    static final String ID_TOO_LONG = "is longer than " + MAX_ID + " characters";
    static final String ID_UNPRINTABLE =
            "must hold printable characters only (no control characters)";
    static final String IMAGE = "must be a printable repo:tag name of at most 255 characters";

    /** Free text that reaches a command line and log lines (URLs, refs, paths). */
    static final int MAX_TEXT = 8192;

    static final String TEXT_TOO_LONG = "is longer than " + MAX_TEXT + " characters";
    static final String CONTROL = "must not contain control characters";
}
