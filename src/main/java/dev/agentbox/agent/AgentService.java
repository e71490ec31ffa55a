package dev.agentbox.agent;

import dev.agentbox.agent.store.AgentThread;
import dev.agentbox.agent.store.AgentTurn;
import dev.agentbox.agent.store.JpaAgentStore;
import dev.agentbox.agent.store.JpaAgentTurnStore;
import dev.agentbox.agent.store.StoredAgent;
import dev.agentbox.platform.LogText;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.RunRequest;
import dev.agentbox.run.RunService;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.sandbox.GivenSecrets;
import dev.agentbox.sandbox.SandboxService;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Agent definitions (tenant-scoped, bounded per tenant) and the runs started through them. A POST
 * of a RunAgentInput records its turn first (unique per tenant and runId), then starts the run: so
 * a repeated POST of the same runId — a client resuming its stream — finds the turn and streams the
 * same run instead of starting a second one, and a runId of another agent or thread is refused.
 */
@ApplicationScoped
public class AgentService {

    private static final Logger LOG = Logger.getLogger(AgentService.class.getName());

    /** How long a repeated POST waits for the run its twin is starting. */
    private static final long RUN_WAIT_MS = 5000;

    @Inject JpaAgentStore agents;

    @Inject JpaAgentTurnStore turns;

    @Inject RunService runs;

    @Inject SandboxService sandboxes;

    @Inject ThreadTranscripts transcripts;

    @Inject CliSessions cliSessions;

    @Inject AgentContinuations continuations;

    @Inject Clock clock;

    @Inject Config config;

    private SecretSets secretSets;

    @Inject
    @ConfigProperty(name = "agentbox.agents.max-per-tenant")
    int maxPerTenant;

    @PostConstruct
    void readConfig() {
        secretSets = SecretSets.fromConfig(config);
        webhookHosts = dev.agentbox.tool.http.HttpToolSettings.fromConfig(config).allowedHosts();
    }

    /** The hosts a webhook may name ({@code agentbox.tools.http.allowed-hosts}). */
    private java.util.Set<String> webhookHosts = java.util.Set.of();

    /**
     * The definition's signing secret (docs/api.md "Webhooks"); empty for a definition stored
     * before definitions had one.
     */
    public Optional<String> signingSecret(String tenant, String agentId) {
        return agents.signingSecret(tenant, agentId);
    }

    /** The stored definition, or {@code 404 agent-not-found}. */
    public AgentDefinition get(String tenant, String agentId) {
        AgentTemplate.requireAgentId(agentId);
        return agents.find(tenant, agentId)
                .map(AgentService::definition)
                .orElseThrow(
                        () ->
                                new ProblemException(
                                        ProblemCode.AGENT_NOT_FOUND, "No agent " + agentId));
    }

    public List<AgentDefinition> list(String tenant) {
        return agents.list(tenant, maxPerTenant > 0 ? maxPerTenant : Integer.MAX_VALUE).stream()
                .map(AgentService::definition)
                .toList();
    }

    private static AgentDefinition definition(StoredAgent s) {
        return new AgentDefinition(
                s.agentId(),
                AgentTemplate.fromJson(
                        Json.createReader(new StringReader(s.definitionJson())).readObject()),
                s.createdAt(),
                s.updatedAt());
    }

    /** Validates and stores the definition; {@code true} when it was created. */
    public boolean put(String tenant, String agentId, JsonValue body) {
        AgentTemplate.requireAgentId(agentId);
        AgentTemplate template = AgentTemplate.parse(body, sandboxes.specParser());
        dev.agentbox.agent.Webhook.requireAllowed(template.webhooks(), webhookHosts);
        String json = template.toJson().toString();
        JpaAgentStore.Put put;
        try {
            put = agents.put(tenant, agentId, json, clock.instant(), maxPerTenant);
        } catch (RuntimeException lostRace) {
            // A concurrent create of the same agentId won the unique constraint: now it exists,
            // and this PUT replaces it (a failure for any other reason fails again here).
            put = agents.put(tenant, agentId, json, clock.instant(), maxPerTenant);
        }
        if (put == JpaAgentStore.Put.FULL) {
            throw new ProblemException(
                    ProblemCode.QUOTA_EXCEEDED,
                    "This tenant has "
                            + maxPerTenant
                            + " agent definitions already (agentbox.agents.max-per-tenant)",
                    Map.of("quota", "agents", "limit", maxPerTenant, "scope", "cluster"),
                    null);
        }
        return put == JpaAgentStore.Put.CREATED;
    }

    public void delete(String tenant, String agentId) {
        AgentTemplate.requireAgentId(agentId);
        if (!agents.delete(tenant, agentId)) {
            throw new ProblemException(ProblemCode.AGENT_NOT_FOUND, "No agent " + agentId);
        }
    }

    /**
     * The AG-UI run a POST streams: a segment of a run ({@link AgUiSegment}), or a refusal.
     *
     * @param run the base run (null for a refusal)
     * @param started whether this POST made the AG-UI run (a new run or a continuation); else it
     *     repeats an earlier POST of its runId and may resume after {@code Last-Event-ID}
     * @param segment which part of the base run's log is this AG-UI run (null for a refusal)
     * @param refusal why the input is refused: the AG-UI run is a lone {@code RUN_ERROR}
     */
    public record AgentRun(
            RunRecordView run,
            boolean started,
            AgUiSegment.Spec segment,
            Optional<AgentContinuations.Refusal> refusal) {

        static AgentRun of(RunRecordView run, boolean started, AgentTurn turn) {
            return new AgentRun(
                    run,
                    started,
                    new AgUiSegment.Spec(
                            turn.threadId(), turn.runId(), turn.startSeq(), turn.continuation()),
                    Optional.empty());
        }
    }

    /**
     * The run of this POST: a new one, or — when the tenant's runId has a turn of this agent and
     * thread already — that run ({@code 409 run-exists} for another agent or thread).
     */
    public AgentRun startOrResume(String tenant, String agentId, JsonValue body) {
        AgentDefinition definition = get(tenant, agentId);
        RunAgentInput input = RunAgentInput.parse(body);
        Optional<AgentTurn> existing = turns.find(tenant, input.runId());
        if (existing.isPresent()) {
            return AgentRun.of(
                    resumed(tenant, existing.get(), agentId, input), false, existing.get());
        }
        requireDistinctTools(definition, input);
        AgentContinuations.Outcome next;
        try {
            next = continuations.plan(tenant, agentId, input);
        } catch (RuntimeException e) {
            // A twin POST of this runId recorded its continuation first: stream that one.
            Optional<AgentTurn> raced = turns.find(tenant, input.runId());
            if (raced.isEmpty()) {
                throw e;
            }
            return AgentRun.of(resumed(tenant, raced.get(), agentId, input), false, raced.get());
        }
        if (next.refusal().isPresent()) {
            return new AgentRun(null, true, null, next.refusal());
        }
        if (next.turn().isPresent()) {
            AgentTurn turn = next.turn().get();
            LOG.info(
                    "agent "
                            + LogText.quote(agentId)
                            + ": run "
                            + LogText.quote(turn.runId())
                            + " continues run "
                            + LogText.quote(turn.baseRunId()));
            return AgentRun.of(awaitRun(tenant, turn.baseRunId()), true, turn);
        }
        // Read before the turn exists: an unknown or unreadable set is a 400 with nothing recorded.
        GivenSecrets secrets = secrets(tenant, input);
        AgentTurn turn =
                new AgentTurn(
                        tenant,
                        input.runId(),
                        agentId,
                        input.threadId(),
                        input.userMessageId(),
                        input.prompt(),
                        clock.instant());
        try {
            turns.create(turn);
        } catch (RuntimeException e) {
            Optional<AgentTurn> raced = turns.find(tenant, input.runId());
            if (raced.isEmpty()) {
                throw e;
            }
            return AgentRun.of(resumed(tenant, raced.get(), agentId, input), false, raced.get());
        }
        try {
            return AgentRun.of(start(tenant, definition, input, secrets), true, turn);
        } catch (RuntimeException e) {
            // No run, no turn: the transcript never shows a turn without its run.
            turns.delete(tenant, input.runId());
            throw e;
        }
    }

    /**
     * The run's secrets: its secret set's variables, then its own secrets, which win with their
     * form (a string given for a variable the set brokers is a string).
     */
    private GivenSecrets secrets(String tenant, RunAgentInput input) {
        if (input.secretSet().isEmpty()) {
            return input.secrets();
        }
        return secretSets.read(tenant, input.secretSet().get()).under(input.secrets());
    }

    private RunRecordView start(
            String tenant, AgentDefinition definition, RunAgentInput input, GivenSecrets secrets) {
        AgentTemplate t = definition.template();
        Optional<String> session =
                cliSessions.latest(
                        tenant, definition.agentId(), input.threadId(), input.runId(), t.harness());
        String prompt =
                session.isPresent()
                        ? input.prompt()
                        : AgentPrompt.text(input.earlier(), input.prompt());
        JsonObjectBuilder b =
                Json.createObjectBuilder()
                        .add("runId", input.runId())
                        .add("threadId", input.threadId())
                        .add(
                                "sandbox",
                                AgentTemplate.forThread(t.sandbox(), input.threadId(), secrets))
                        .add("harness", t.harness().wireName())
                        .add("prompt", prompt)
                        .add("durable", t.durable())
                        .add("detachOnDisconnect", t.detachOnDisconnect())
                        .add("destroyOnComplete", t.destroyOnComplete());
        t.command().ifPresent(c -> b.add("command", c));
        t.permissionMode().ifPresent(m -> b.add("permissionMode", m.wireName()));
        t.maxDurationMs().ifPresent(m -> b.add("maxDurationMs", m));
        if (!t.approvals().isEmpty()) {
            b.add("approvals", t.approvals().toJson());
        }
        t.brokering().addTo(b);
        t.acp().ifPresent(a -> b.add("acp", a.toJson()));
        RunRequest request =
                forwardedSecretsFields(() -> RunRequest.parse(b.build(), sandboxes.specParser()))
                        .withAcpSession(session);
        RunRecordView run =
                runs.start(
                        tenant,
                        request,
                        AgentPrompt.invocation(t, input.earlier(), input.prompt(), session),
                        t.tools(),
                        input.tools());
        LOG.info(
                "agent "
                        + LogText.quote(definition.agentId())
                        + ": run "
                        + LogText.quote(run.runId())
                        + " started"
                        + (session.isPresent()
                                ? " (resuming the thread's " + t.harness().wireName() + " session)"
                                : ""));
        return run;
    }

    /**
     * {@code parse}, with a refusal of a secret the input gave named where the client gave it: the
     * run body holds the input's secrets as {@code sandbox.workspace.secrets}, the client sent them
     * as {@code forwardedProps.agentbox.secrets} (or in its secret set, which names the same).
     */
    private static RunRequest forwardedSecretsFields(
            java.util.function.Supplier<RunRequest> parse) {
        try {
            return parse.get();
        } catch (ProblemException e) {
            String inRun = "sandbox.workspace.secrets";
            if (!(e.extensions().get("field") instanceof String f) || !f.startsWith(inRun)) {
                throw e;
            }
            String given = "forwardedProps.agentbox.secrets";
            Map<String, Object> extensions = new java.util.LinkedHashMap<>(e.extensions());
            extensions.put("field", given + f.substring(inRun.length()));
            throw new ProblemException(
                    e.code(), e.detail().replace(inRun, given), extensions, null);
        }
    }

    /** A repeated POST: the same agent and thread stream the turn's run. */
    private RunRecordView resumed(
            String tenant, AgentTurn turn, String agentId, RunAgentInput input) {
        if (!turn.agentId().equals(agentId) || !turn.threadId().equals(input.threadId())) {
            throw new ProblemException(
                    ProblemCode.RUN_EXISTS,
                    "runId "
                            + input.runId()
                            + " is already used by this tenant for another agent or thread",
                    Map.of("runId", input.runId()),
                    null);
        }
        return awaitRun(tenant, turn.baseRunId());
    }

    /** A client tool may not share a name with one of the definition's HTTP tools. */
    private static void requireDistinctTools(AgentDefinition definition, RunAgentInput input) {
        java.util.Set<String> own = new java.util.HashSet<>();
        definition.template().tools().forEach(t -> own.add(t.name()));
        for (var t : input.tools()) {
            if (own.contains(t.name())) {
                throw AgentTemplate.invalid(
                        "tools", "names " + t.name() + ", a tool of the agent definition");
            }
        }
    }

    /**
     * The run of an existing turn. Its twin POST inserts the turn before it creates the run, so the
     * run may be a moment away; after {@value #RUN_WAIT_MS} ms without it: 404.
     */
    private RunRecordView awaitRun(String tenant, String runId) {
        long deadline = System.nanoTime() + RUN_WAIT_MS * 1_000_000;
        while (true) {
            try {
                return runs.get(tenant, runId);
            } catch (ProblemException e) {
                if (e.code() != ProblemCode.NOT_FOUND || System.nanoTime() > deadline) {
                    throw e;
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw ProblemException.notFound("No run " + runId);
            }
        }
    }

    /**
     * An AG-UI run of this agent: its base run and segment ({@code 404} for any other run, also one
     * of another agent).
     */
    public AgentRun run(String tenant, String agentId, String runId) {
        get(tenant, agentId);
        RunRequest.requireId("runId", runId);
        return turns.find(tenant, runId)
                .filter(t -> t.agentId().equals(agentId))
                .map(t -> AgentRun.of(runs.get(tenant, t.baseRunId()), false, t))
                .orElseThrow(
                        () ->
                                ProblemException.notFound(
                                        "No run " + runId + " of agent " + agentId));
    }

    /** The thread's AG-UI messages as of {@code seq} of {@code baseRunId}'s log (a snapshot). */
    public jakarta.json.JsonArray snapshotMessages(
            String tenant, String agentId, String threadId, String baseRunId, long seq) {
        return transcripts.agUiMessages(tenant, agentId, threadId, baseRunId, seq);
    }

    /** The agent's newest {@code limit} threads; {@code 404} for an unknown agent. */
    public List<AgentThread> threads(String tenant, String agentId, int limit) {
        get(tenant, agentId);
        return turns.threads(tenant, agentId, limit);
    }

    /** {@code {"messages","activeRun","interrupts"}} of the agent's thread. */
    public JsonObject thread(String tenant, String agentId, String threadId) {
        get(tenant, agentId);
        RunRequest.requireId("threadId", threadId);
        return transcripts.of(tenant, agentId, threadId);
    }
}
