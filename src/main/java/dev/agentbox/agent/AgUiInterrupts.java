package dev.agentbox.agent;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;

/**
 * How a run's interrupt reads to AG-UI clients: the stored interrupt ({@code
 * {"id","reason","toolCallId?","tool","arguments","expiresAt"}}) as an AG-UI {@code Interrupt}. An
 * approval's reason is {@code approval_required} with metadata {@code {"kind":"approval",
 * "toolName","input"}}; a client tool's is {@code client_tool_input} with {@code
 * {"kind":"client_tool","toolName","input"}} — the shapes {@code @tanstack/ai-client} acts on (it
 * runs the client tool, or asks for the approval).
 */
public final class AgUiInterrupts {

    /** The chunk name an interrupt opens with ({@code GateEvents.INTERRUPT_REQUESTED}). */
    static final String REQUESTED = "interrupt.requested";

    static final String APPROVAL = "approval";
    static final String CLIENT_TOOL = "client_tool_input";

    private AgUiInterrupts() {}

    public static JsonObject toAgUi(JsonObject stored) {
        String reason = stored.getString("reason", "");
        String tool = stored.getString("tool", "");
        boolean approval = reason.equals(APPROVAL);
        JsonObjectBuilder b =
                Json.createObjectBuilder()
                        .add("id", stored.getString("id", ""))
                        .add("reason", approval ? "approval_required" : reason)
                        .add(
                                "message",
                                approval
                                        ? "Approve the call of " + tool + "?"
                                        : "Run the client tool " + tool);
        if (stored.get("toolCallId") instanceof JsonString t) {
            b.add("toolCallId", t.getString());
        }
        if (stored.get("expiresAt") instanceof JsonString e) {
            b.add("expiresAt", e.getString());
        }
        return b.add(
                        "metadata",
                        Json.createObjectBuilder()
                                .add(
                                        "kind",
                                        approval
                                                ? "approval"
                                                : reason.equals(CLIENT_TOOL)
                                                        ? "client_tool"
                                                        : reason)
                                .add("toolName", tool)
                                .add(
                                        "input",
                                        stored.getOrDefault(
                                                "arguments", JsonObject.EMPTY_JSON_OBJECT)))
                .build();
    }
}
