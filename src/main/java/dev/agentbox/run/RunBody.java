package dev.agentbox.run;

import dev.agentbox.platform.body.JsonBody;
import dev.agentbox.platform.body.Printable;
import dev.agentbox.platform.body.TypeMismatch;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/**
 * The {@code POST /runs} body as it arrives, read by {@link JsonBody}: each member checked on its
 * own. What spans members (a durable run needs its {@code runId}, each harness its {@code command}
 * or {@code prompt}) and what names a wire value ({@code harness}, {@code permissionMode}) is
 * {@link RunRequest#parse}'s, which turns this into a {@link RunRequest}. {@code sandbox} is either
 * {@code {"key"}} or an ensure body, which the sandbox's own parser reads; {@code approvals} is
 * read by {@code ApprovalRules}, {@code brokeredSecrets} and {@code plainSecrets} by {@code
 * SecretBrokering}.
 */
public record RunBody(
        @TypeMismatch(NON_EMPTY)
                @Size(min = 1, message = NON_EMPTY)
                @Size(max = MAX_ID, message = ID_TOO_LONG)
                @Printable
                String runId,
        @TypeMismatch(NON_EMPTY)
                @NotNull(message = "is required")
                @Size(min = 1, message = NON_EMPTY)
                @Size(max = MAX_ID, message = ID_TOO_LONG)
                @Printable
                String threadId,
        @TypeMismatch(SANDBOX) @NotNull(message = SANDBOX_TEMPLATE) JsonObject sandbox,
        @TypeMismatch(NON_EMPTY) @Size(min = 1, message = NON_EMPTY) String harness,
        @TypeMismatch(NON_EMPTY) @Size(min = 1, message = NON_EMPTY) String command,
        @TypeMismatch(NON_EMPTY) @Size(min = 1, message = NON_EMPTY) String prompt,
        @TypeMismatch(NON_EMPTY) @Size(min = 1, message = NON_EMPTY) String permissionMode,
        Boolean durable,
        Boolean detachOnDisconnect,
        Boolean destroyOnComplete,
        @TypeMismatch(DURATION)
                @Min(value = 0, message = DURATION)
                @Max(value = (1L << 62) - 1, message = DURATION)
                Long maxDurationMs,
        Boolean fileEvents,
        JsonValue approvals,
        JsonValue brokeredSecrets,
        JsonValue plainSecrets,
        JsonValue acp) {

    static final int MAX_ID = RunRequest.MAX_ID_LENGTH;
    static final String NON_EMPTY = "must be a non-empty string";
    static final String ID_TOO_LONG = "must be at most " + MAX_ID + " characters";
    static final String SANDBOX = "is required: {\"key\"} of a sandbox or an ensure body";
    // The same, as a message template: braces are escaped for the interpolator.
    static final String SANDBOX_TEMPLATE =
            "is required: \\{\"key\"\\} of a sandbox or an ensure body";
    static final String DURATION = "must be a non-negative integer of milliseconds (0 = no bound)";

    static RunBody read(JsonValue body) {
        return JsonBody.read(body, RunBody.class);
    }
}
