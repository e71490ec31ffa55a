package dev.agentbox.agent;

import dev.agentbox.platform.body.JsonMembers;
import dev.agentbox.platform.body.Printable;
import dev.agentbox.platform.body.TypeMismatch;
import dev.agentbox.run.RunRequest;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/**
 * The members of an AG-UI {@code RunAgentInput} the server reads, as they arrive, read by {@link
 * JsonMembers} in this order; every other member ({@code context}, {@code state}, {@code
 * parentRunId} …) is tolerated, as AG-UI's open schema wants, and so is a {@code forwardedProps}
 * that is not an object. The messages' contents, the tools, the resume entries' statuses and the
 * secrets' names are {@link RunAgentInputReader}'s.
 */
public record AgUiInputBody(
        @TypeMismatch(REQUIRED)
                @NotNull(message = REQUIRED)
                @Size(min = 1, message = REQUIRED)
                @Size(max = RunRequest.MAX_ID_LENGTH, message = ID_TOO_LONG)
                @Printable
                String threadId,
        @TypeMismatch(REQUIRED)
                @NotNull(message = REQUIRED)
                @Size(min = 1, message = REQUIRED)
                @Size(max = RunRequest.MAX_ID_LENGTH, message = ID_TOO_LONG)
                @Printable
                String runId,
        @TypeMismatch(MESSAGES) @NotNull(message = MESSAGES) JsonArray messages,
        JsonValue forwardedProps,
        @TypeMismatch("must be an array of AG-UI tools")
                @Size(max = MAX_TOOLS, message = "has more than " + MAX_TOOLS + " tools")
                JsonArray tools,
        @TypeMismatch("must be an array of {interruptId, status, payload?}")
                @Size(max = MAX_RESUME, message = "has more than " + MAX_RESUME + " entries")
                JsonArray resume) {

    /** At most this many client tools, resume entries. */
    static final int MAX_TOOLS = 64;

    static final int MAX_RESUME = 64;

    /** Message and interrupt ids are stored in 255-char columns. */
    static final int MAX_MESSAGE_ID = 255;

    static final String REQUIRED = "is required: a non-empty string";
    static final String ID_TOO_LONG = "must be at most " + RunRequest.MAX_ID_LENGTH + " characters";
    static final String MESSAGES = "is required: an array of AG-UI messages";

    /** One of {@code messages}; its {@code content} is a string or an array of parts. */
    public record Message(
            @TypeMismatch(ROLE) @NotNull(message = ROLE) @Size(min = 1, message = ROLE) String role,
            @TypeMismatch(ID) @Size(max = MAX_MESSAGE_ID, message = ID) String id) {

        static final String ROLE = "is required: a string (user, assistant, …)";
        static final String ID = "must be a string of at most 255 characters";
    }

    /** {@code forwardedProps}, when it is an object: only {@code agentbox} is the server's. */
    public record ForwardedProps(@TypeMismatch("must be an object") JsonObject agentbox) {}

    /** {@code forwardedProps.agentbox}: the run's secrets and the tenant's secret set it names. */
    public record Agentbox(
            @TypeMismatch("must be an object of names to strings or {value, brokerHosts}")
                    JsonObject secrets,
            @TypeMismatch(SET) @Size(min = 1, message = SET) String secretSet) {

        static final String SET = "must be the name of a secret set";
    }

    /** One of {@code resume}: the answer to an interrupt; which statuses answer is the reader's. */
    public record Resume(
            @TypeMismatch(INTERRUPT_ID)
                    @NotNull(message = INTERRUPT_ID)
                    @Size(min = 1, max = MAX_MESSAGE_ID, message = INTERRUPT_ID)
                    String interruptId,
            @TypeMismatch(STATUS) @NotNull(message = STATUS) String status,
            JsonValue payload) {

        static final String INTERRUPT_ID = "is required: an interrupt's id";
        static final String STATUS = "must be resolved or cancelled";
    }
}
