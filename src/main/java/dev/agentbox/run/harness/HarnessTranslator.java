package dev.agentbox.run.harness;

import jakarta.json.JsonObject;
import java.util.List;
import java.util.Optional;

/**
 * Turns one run's journal lines into chunks. One instance per run and per translation (a takeover
 * makes a new one and replays from byte 0).
 *
 * <p>Contract, relied on by alignment:
 *
 * <ul>
 *   <li><b>Deterministic</b>: the chunks depend only on the runId, the threadId and the sequence of
 *       calls and their arguments — except {@code timestamp}, which comes from the injected
 *       supplier. Ids come from {@link RunIds}.
 *   <li>{@link #onStart()} is called once, first, and yields {@code RUN_STARTED}.
 *   <li>At most one terminal chunk ({@code RUN_FINISHED}/{@code RUN_ERROR}) is ever produced, and
 *       it is the last: after it, lines and the exit produce nothing.
 *   <li>The chunks are a valid AG-UI 1.0 sequence ({@link AgUiSequence}): nothing is left open at
 *       the terminal chunk, which closes whatever still is first, in a fixed order.
 *   <li>{@link #onExit} closes whatever is open, then ends the run unless the agent's own output
 *       already did: {@code RUN_FINISHED} for 0, otherwise {@code RUN_ERROR} {@code "Agent process
 *       exited with code N: <stderr tail>"}, code {@code agent-exit} (the codex harness names the
 *       CLI's own last error instead, code {@code agent-error}, when it printed one).
 * </ul>
 */
public interface HarnessTranslator {

    /** Error code of a run whose agent exited non-zero. */
    String AGENT_EXIT = "agent-exit";

    /** Error code of a run whose agent reported a failure in its own output. */
    String AGENT_ERROR = "agent-error";

    /** The run's first chunks: {@code RUN_STARTED}. */
    List<JsonObject> onStart();

    /** Chunks for one complete journal line (without its newline; never the sentinel). */
    List<JsonObject> onLine(String line);

    /**
     * The closing chunks once the sentinel was read.
     *
     * @param stderr the agent's stderr (the {@code .err} file), of which the last 1000 characters
     *     go into the error message
     */
    List<JsonObject> onExit(int exitCode, String stderr);

    /** Whether a terminal chunk has been produced. */
    boolean terminated();

    /**
     * The terminal chunk this translator emitted, if any: from an agent's own line (then {@link
     * #onExit} adds nothing) or at exit.
     */
    java.util.Optional<jakarta.json.JsonObject> terminal();

    /** Token usage the agent reported, when its harness reports any. */
    default Optional<JsonObject> usage() {
        return Optional.empty();
    }
}
