package dev.agentbox.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.platform.TestDatabase;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.store.ClaimStore;
import dev.agentbox.run.store.EventLog;
import dev.agentbox.run.store.FinishResult;
import dev.agentbox.run.store.JpaClaimStore;
import dev.agentbox.run.store.JpaEventLog;
import dev.agentbox.run.store.JpaRunStore;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.run.store.RunStore;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.store.JpaSandboxInstanceStore;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Real stores on embedded Derby, and helpers that put journal files with known mtimes into a real
 * sandbox through its own exec (so that the files are exactly what a sandbox holds).
 */
final class PruneFixture implements AutoCloseable {

    final TestDatabase db;
    final RunStore runs;
    final ClaimStore claims;
    final EventLog log;
    final SandboxInstanceStore instances;

    private PruneFixture(TestDatabase db) {
        this.db = db;
        this.runs = db.transactional(RunStore.class, JpaRunStore::new);
        this.claims = db.transactional(ClaimStore.class, JpaClaimStore::new);
        this.log = db.transactional(EventLog.class, JpaEventLog::new);
        this.instances =
                db.transactional(
                        SandboxInstanceStore.class,
                        em -> new JpaSandboxInstanceStore(em, db.dataSource()));
    }

    static PruneFixture open() {
        return new PruneFixture(TestDatabase.open(TestDatabase.Kind.DERBY));
    }

    static String newTenant() {
        return "prune-" + UUID.randomUUID().toString().substring(0, 8);
    }

    RunRecordView running(String tenant, String runId) {
        return runs.create(
                        NewRun.durable(
                                tenant,
                                runId,
                                "thread-" + runId,
                                Harness.COMMAND,
                                Instant.parse("2030-01-01T00:00:00Z")))
                .orElseThrow();
    }

    /** A run finished the way a driver finishes it: claimed, then the fenced terminal update. */
    void finished(String tenant, String runId, RunStatus status) {
        RunRecordView run = running(tenant, runId);
        long epoch = claims.claim(run.ref(), "test-node").orElseThrow();
        assertThat(
                        log.finishRun(
                                run.ref(),
                                epoch,
                                status,
                                Instant.parse("2030-01-01T00:01:00Z"),
                                Optional.empty()))
                .isEqualTo(FinishResult.FINISHED);
    }

    /** No store operation makes a run interrupted, so the row is set directly. */
    void interrupted(String tenant, String runId) {
        RunRecordView run = running(tenant, runId);
        int updated =
                db.inTransaction(
                        em ->
                                em.createQuery(
                                                "UPDATE RunRecord r SET r.status = :s WHERE r.runPk = :pk")
                                        .setParameter("s", RunStatus.INTERRUPTED)
                                        .setParameter("pk", run.ref().id())
                                        .executeUpdate());
        assertThat(updated).isEqualTo(1);
        assertThat(runs.find(tenant, runId).orElseThrow().status())
                .isEqualTo(RunStatus.INTERRUPTED);
    }

    SandboxInstance register(SandboxHandle handle, String tenant) {
        String key = UUID.randomUUID().toString().replace("-", "");
        return instances.upsert(
                new SandboxInstance(
                        key,
                        tenant,
                        handle.provider(),
                        handle.id(),
                        null,
                        Instant.parse("2030-01-01T00:00:00Z"),
                        3_600_000));
    }

    void deleteAllInstances() {
        for (SandboxInstance i : instances.listAll(JournalPruner.SANDBOX_LIMIT)) {
            instances.delete(i.tenant(), i.key());
        }
    }

    static String ndjson(String runId) {
        return JournalNames.encode(runId) + JournalNames.JOURNAL_SUFFIX;
    }

    static String err(String runId) {
        return JournalNames.encode(runId) + JournalNames.ERR_SUFFIX;
    }

    static String prompt(String runId) {
        return JournalNames.encode(runId) + JournalNames.PROMPT_SUFFIX;
    }

    /** Both files of each run, all modified at {@code mtime}. */
    static Map<String, Instant> journals(Instant mtime, String... runIds) {
        Map<String, Instant> files = new LinkedHashMap<>();
        for (String runId : runIds) {
            files.put(ndjson(runId), mtime);
            files.put(err(runId), mtime);
        }
        return files;
    }

    /**
     * Creates (empty) files named as given in {@code dir}, each with its mtime in epoch seconds.
     */
    static void seed(SandboxHandle handle, String dir, Map<String, Instant> files) {
        StringBuilder script =
                new StringBuilder(
                        "mkdir -p " + ShellQuote.single(dir) + " && cd " + ShellQuote.single(dir));
        files.forEach(
                (name, mtime) ->
                        script.append(" && touch -d @")
                                .append(mtime.getEpochSecond())
                                .append(' ')
                                .append(ShellQuote.single(name)));
        exec(handle, script.toString());
    }

    /** The names in {@code dir} (dot files too), sorted; empty when the directory is missing. */
    static List<String> files(SandboxHandle handle, String dir) {
        String out =
                exec(handle, "cd " + ShellQuote.single(dir) + " 2>/dev/null || exit 0; ls -A")
                        .stdout();
        return Arrays.stream(out.split("\n")).filter(s -> !s.isEmpty()).sorted().toList();
    }

    static ExecResult exec(SandboxHandle handle, String command) {
        ExecResult r = handle.process().exec(command);
        assertThat(r.exitCode()).as("exit of %s; stderr %s", command, r.stderr()).isZero();
        return r;
    }

    /** The real store, counting {@code find} calls. */
    static RunStore counting(RunStore real, AtomicInteger finds) {
        return wrap(
                real,
                (method, args) -> {
                    if (method.equals("find")) {
                        finds.incrementAndGet();
                    }
                });
    }

    /**
     * The real store, except that {@code find} of {@code runId} fails as a broken database would.
     */
    static RunStore failingFor(RunStore real, String runId) {
        return wrap(
                real,
                (method, args) -> {
                    if (method.equals("find") && runId.equals(args[1])) {
                        throw new IllegalStateException("database is down");
                    }
                });
    }

    private interface Before {
        void call(String method, Object[] args);
    }

    private static RunStore wrap(RunStore real, Before before) {
        return (RunStore)
                Proxy.newProxyInstance(
                        RunStore.class.getClassLoader(),
                        new Class<?>[] {RunStore.class},
                        (proxy, method, args) -> {
                            before.call(method.getName(), args);
                            try {
                                return method.invoke(real, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
    }

    @Override
    public void close() {
        db.close();
    }
}
