package dev.agentbox.agent;

import dev.agentbox.interrupt.store.InterruptStatus;
import dev.agentbox.sandbox.GivenSecrets;
import dev.agentbox.tool.ClientTool;
import jakarta.json.JsonValue;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the service takes from an AG-UI {@code RunAgentInput}: ids, the prompt (the text of the last
 * {@code user} message), the text of the messages before it, and the run's secrets from {@code
 * forwardedProps.agentbox.secrets}, the client's own tools ({@code tools}) and its answers to the
 * previous run's interrupts ({@code resume} entries, {@code tool} messages by {@code toolCallId}).
 * Members it does not use ({@code context}, {@code state}, and whatever else a client sends, e.g.
 * {@code parentRunId}) are tolerated, not validated.
 *
 * @param earlier the user and assistant messages before the prompt's, oldest first, with text
 * @param secrets environment variables for the sandbox, each a string or brokered (as {@code
 *     workspace.secrets} takes them): never stored, never logged
 * @param secretSet the tenant's named secret set ({@code forwardedProps.agentbox.secretSet}) whose
 *     variables the run also gets ({@link SecretSets}); {@code secrets} win on a clash
 */
public record RunAgentInput(
        String threadId,
        String runId,
        String userMessageId,
        String prompt,
        List<Message> earlier,
        GivenSecrets secrets,
        Optional<String> secretSet,
        List<ClientTool> tools,
        List<Resume> resume,
        Map<String, String> toolResults) {

    /** A message's role and its text. */
    public record Message(String role, String text) {}

    /**
     * One {@code resume} entry: the answer to an interrupt of the thread's previous AG-UI run.
     *
     * @param payload the answer's payload, {@code JsonValue.NULL} when absent
     */
    public record Resume(String interruptId, InterruptStatus status, JsonValue payload) {}

    @Override
    public String toString() {
        // Secrets never reach a log line, also not through an accidental toString().
        return "RunAgentInput[threadId=" + threadId + ", runId=" + runId + "]";
    }

    /**
     * {@code body} as the service reads it ({@link RunAgentInputReader}), or a {@code 400
     * invalid-request} naming the field.
     */
    public static RunAgentInput parse(JsonValue body) {
        return RunAgentInputReader.read(body);
    }

    /** Whether this input answers interrupts (a {@code resume} or a {@code tool} message). */
    public boolean answers() {
        return !resume.isEmpty() || !toolResults.isEmpty();
    }
}
