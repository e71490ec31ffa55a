package dev.agentbox.sandbox;

import dev.agentbox.platform.body.JsonMembers;
import dev.agentbox.platform.body.NonBlank;
import dev.agentbox.platform.body.Printable;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * A {@code workspace.source}, read by {@link JsonMembers}: its {@code type} first ({@link None}
 * alone reads it), which says which members the object may have. URLs, refs and paths reach a
 * command line and log lines: short, no control characters, no leading {@code -} (an option to
 * git). Credentials in the URL and the local source's root are {@link WorkspaceReader}'s.
 */
public sealed interface SourceBody {

    /** {@code {"type":"none"}}, and how every source's {@code type} is read. */
    record None(
            @NotNull(message = "is required (git, none or local)")
                    @NonBlank(message = EnsureBody.EMPTY)
                    String type)
            implements SourceBody {}

    /** {@code depth} 0 (or absent) is the full history. */
    record Git(
            String type,
            @NotNull(message = "is required for a git source")
                    @NonBlank(message = EnsureBody.EMPTY)
                    @Size(max = EnsureBody.MAX_TEXT, message = EnsureBody.TEXT_TOO_LONG)
                    @Printable(message = EnsureBody.CONTROL, withIndex = false)
                    @Pattern(regexp = NO_DASH, message = "must not start with '-'")
                    String url,
            @NonBlank(message = EnsureBody.EMPTY)
                    @Size(max = EnsureBody.MAX_TEXT, message = EnsureBody.TEXT_TOO_LONG)
                    @Printable(message = EnsureBody.CONTROL, withIndex = false)
                    @Pattern(regexp = NO_DASH, message = "must be a branch, tag or commit name")
                    String ref,
            @Min(value = 0, message = DEPTH) @Max(value = Integer.MAX_VALUE, message = DEPTH)
                    Long depth)
            implements SourceBody {}

    /** A directory under the server's local source root. */
    record Local(
            String type,
            @NotNull(message = "is required for a local source")
                    @NonBlank(message = EnsureBody.EMPTY)
                    @Size(max = EnsureBody.MAX_TEXT, message = EnsureBody.TEXT_TOO_LONG)
                    @Printable(message = EnsureBody.CONTROL, withIndex = false)
                    String path)
            implements SourceBody {}

    String NO_DASH = "(?s)(?!-).*";
    String DEPTH = "must be 0 (full history) or a positive count of commits";
}
