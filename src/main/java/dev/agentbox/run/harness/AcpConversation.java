package dev.agentbox.run.harness;

import dev.agentbox.run.harness.AcpMessages.AgentCapabilities;
import dev.agentbox.run.harness.AcpMessages.Envelope;
import dev.agentbox.run.harness.AcpMessages.InitializeResponse;
import dev.agentbox.run.harness.AcpMessages.PromptResponse;
import dev.agentbox.run.harness.AcpMessages.RpcError;
import dev.agentbox.run.harness.AcpMessages.SessionNotification;
import dev.agentbox.run.harness.AcpMessages.SessionResponse;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The client side of one ACP turn as a function of what the agent wrote: each journal line (one
 * JSON-RPC message of the agent's stdout) yields the steps it causes. The same lines always yield
 * the same steps, so the run's translator (which turns them into chunks) and its client (which
 * writes the requests) agree on every server, and a server that takes the run over recomputes every
 * request the first one sent, byte for byte, from the journal alone.
 *
 * <p>The turn: {@code initialize} (id 1); then {@code session/resume} where the agent offers it and
 * the thread has a session, else {@code session/load} where it offers that, else {@code
 * session/new} (id 2); a load or resume the agent refuses falls back to {@code session/new} (id 5);
 * {@code session/set_mode} when the mode must change (id 3); {@code session/prompt} (id 4). Once
 * the prompt is answered, or any step failed, the turn ends ({@link Step.End}): the client closes
 * the agent's stdin.
 */
public final class AcpConversation {

    public static final long INITIALIZE = 1;
    public static final long OPEN = 2;
    public static final long SET_MODE = 3;
    public static final long PROMPT = 4;
    public static final long OPEN_NEW = 5;

    /** How the session is opened. */
    public enum Open {
        NEW("session/new"),
        LOAD("session/load"),
        RESUME("session/resume");

        public final String method;

        Open(String method) {
            this.method = method;
        }
    }

    /** What one line causes. */
    public sealed interface Step {

        /** A request of ours to send. */
        record Send(long id, String method, Optional<String> modeId) implements Step {}

        /** The session is open: a new one, or the thread's continued. */
        record Opened(String sessionId, boolean continued) implements Step {}

        /** The prompt was answered with {@code stopReason}. */
        record Answered(String stopReason) implements Step {}

        /** A step failed; the run fails with {@code message}. */
        record Failed(String message) implements Step {}

        /**
         * A {@code session/update}; {@code replayed} while a loaded session replays its history.
         */
        record Update(JsonObject update, String kind, boolean replayed) implements Step {}

        /** A request of the agent's, to answer. */
        record AgentRequest(JsonValue id, String method, JsonValue params) implements Step {}

        /** The turn is over: the agent's stdin is closed. */
        record End() implements Step {}

        /** A line that is not a JSON-RPC message. */
        record NotProtocol(String line) implements Step {}
    }

    private final AcpPlan plan;
    private Open open;
    private long openId = OPEN;
    private String sessionId;
    private boolean ended;

    public AcpConversation(AcpPlan plan) {
        this.plan = plan;
    }

    /** The first request, sent when the agent starts. */
    public List<Step> start() {
        return List.of(new Step.Send(INITIALIZE, "initialize", Optional.empty()));
    }

    /** The session, once open. */
    public Optional<String> sessionId() {
        return Optional.ofNullable(sessionId);
    }

    /** How the session is being opened (null before {@code initialize} is answered). */
    public Open open() {
        return open;
    }

    /** Whether the turn is over. */
    public boolean ended() {
        return ended;
    }

    /** The steps {@code line} causes. */
    public List<Step> onLine(String line) {
        if (!line.stripLeading().startsWith("{")) {
            return List.of(new Step.NotProtocol(line));
        }
        Optional<Envelope> read = AcpMessages.read(line, Envelope.class);
        if (read.isEmpty() || !"2.0".equals(read.get().jsonrpc())) {
            return List.of(new Step.NotProtocol(line));
        }
        Envelope m = read.get();
        if (m.isRequest()) {
            return List.of(new Step.AgentRequest(m.id(), m.method(), m.params()));
        }
        if (m.isNotification()) {
            if ("session/update".equals(m.method())) {
                Optional<SessionNotification> n =
                        AcpMessages.read(m.params(), SessionNotification.class);
                if (n.isPresent() && n.get().update() != null) {
                    JsonObject u = n.get().update();
                    boolean replayed = sessionId == null && open == Open.LOAD;
                    return List.of(new Step.Update(u, u.getString("sessionUpdate", ""), replayed));
                }
            }
            return List.of(new Step.NotProtocol(line));
        }
        if (m.isResponse() && m.id() instanceof JsonNumber n && n.isIntegral()) {
            return onResponse(n.longValue(), m);
        }
        return List.of(new Step.NotProtocol(line));
    }

    private List<Step> onResponse(long id, Envelope m) {
        if (ended) {
            return List.of();
        }
        List<Step> steps = new ArrayList<>();
        if (id == INITIALIZE && open == null) {
            if (m.error() != null) {
                return fail(steps, "initialize", m.error());
            }
            InitializeResponse r =
                    AcpMessages.read(m.result(), InitializeResponse.class).orElse(null);
            if (r == null) {
                return fail(steps, "initialize: the agent's answer is not an InitializeResponse");
            }
            if (r.protocolVersion() == null
                    || r.protocolVersion() != AcpMessages.PROTOCOL_VERSION) {
                return fail(
                        steps,
                        "initialize: the agent speaks ACP version "
                                + r.protocolVersion()
                                + ", agentbox speaks "
                                + AcpMessages.PROTOCOL_VERSION);
            }
            AgentCapabilities caps = r.agentCapabilities();
            open =
                    plan.continueSession().isEmpty() || caps == null
                            ? Open.NEW
                            : caps.resumes() ? Open.RESUME : caps.loads() ? Open.LOAD : Open.NEW;
            steps.add(new Step.Send(OPEN, open.method, Optional.empty()));
            return steps;
        }
        if (id == openId && open != null && sessionId == null) {
            if (m.error() != null) {
                if (open != Open.NEW) {
                    // The session is not in this sandbox (another one ran the earlier turn, or
                    // the agent lost it): the turn goes on in a new session.
                    open = Open.NEW;
                    openId = OPEN_NEW;
                    steps.add(new Step.Send(OPEN_NEW, Open.NEW.method, Optional.empty()));
                    return steps;
                }
                return fail(steps, open.method, m.error());
            }
            SessionResponse r = AcpMessages.read(m.result(), SessionResponse.class).orElse(null);
            String id2 =
                    open == Open.NEW
                            ? (r == null ? null : r.sessionId())
                            : plan.continueSession().orElseThrow();
            if (id2 == null || id2.isEmpty()) {
                return fail(steps, open.method + ": the agent's answer names no sessionId");
            }
            sessionId = id2;
            steps.add(new Step.Opened(sessionId, open != Open.NEW));
            Optional<String> mode;
            try {
                mode = plan.modeToSet(r == null ? null : r.modes());
            } catch (AcpPlan.ModeRefused e) {
                return fail(steps, "session/set_mode: " + e.getMessage());
            }
            steps.add(
                    mode.isPresent()
                            ? new Step.Send(SET_MODE, "session/set_mode", mode)
                            : new Step.Send(PROMPT, "session/prompt", Optional.empty()));
            return steps;
        }
        if (id == SET_MODE && sessionId != null) {
            if (m.error() != null) {
                return fail(steps, "session/set_mode", m.error());
            }
            steps.add(new Step.Send(PROMPT, "session/prompt", Optional.empty()));
            return steps;
        }
        if (id == PROMPT && sessionId != null) {
            if (m.error() != null) {
                return fail(steps, "session/prompt", m.error());
            }
            String reason =
                    AcpMessages.read(m.result(), PromptResponse.class)
                            .map(PromptResponse::stopReason)
                            .orElse(null);
            if (reason == null) {
                return fail(steps, "session/prompt: the agent's answer names no stopReason");
            }
            steps.add(new Step.Answered(reason));
            ended = true;
            steps.add(new Step.End());
            return steps;
        }
        return steps; // an answer to nothing we asked (or asked already): passed over
    }

    private List<Step> fail(List<Step> steps, String method, RpcError error) {
        String message = error.message() == null ? "(no message)" : error.message();
        return fail(
                steps,
                method
                        + ": "
                        + message
                        + (error.code() == null ? "" : " (JSON-RPC error " + error.code() + ")"));
    }

    private List<Step> fail(List<Step> steps, String message) {
        steps.add(new Step.Failed(message));
        ended = true;
        steps.add(new Step.End());
        return steps;
    }
}
