package dev.agentbox.bench;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.run.Alignment;
import dev.agentbox.run.harness.Chunks;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.harness.HarnessTranslator;
import dev.agentbox.run.journal.JournalId;
import dev.agentbox.run.journal.JournalLauncher;
import dev.agentbox.run.journal.JournalLine;
import dev.agentbox.run.journal.JournalReader;
import dev.agentbox.run.store.StoredChunk;
import dev.agentbox.sandbox.docker.DockerSandboxProvider;
import dev.agentbox.sandbox.docker.DockerSettings;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import jakarta.json.JsonObject;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Replay + alignment of a long journal, as a successor does it on takeover: an agent in a Debian
 * sandbox writes N lines; the journal is then read from byte 0 (follow mode, as the driver does),
 * every line translated by a fresh translator and aligned against the stored fingerprints of the
 * first translation, to the sentinel. Prints the wall time.
 */
public final class ReplayBench {

    public static void main(String[] args) throws Exception {
        int lines = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        DockerSandboxProvider provider =
                new DockerSandboxProvider(
                        DockerSettings.defaults(), new DaemonThreads("bench"), Clock.systemUTC());
        SandboxHandle sandbox =
                provider.create(SandboxCreateInput.defaults().withKey("bench-replay", "bench"));
        try {
            String runId = "bench-replay";
            JournalId journal = JournalId.random(runId);
            JournalLauncher launcher = new JournalLauncher();
            launcher.start(
                    sandbox,
                    journal,
                    "i=0; while [ $i -lt "
                            + lines
                            + " ]; do echo '{\"delta\":\"some streamed text\"}'; i=$((i+1)); done");

            List<JsonObject> first = translate(sandbox, journal);
            List<StoredChunk> stored = new ArrayList<>();
            for (JsonObject c :
                    first.subList(
                            0,
                            first.size()
                                    - 1)) { // the dead driver stored all but the terminal chunk
                stored.add(new StoredChunk(c.getString("type"), Chunks.fingerprint(c)));
            }

            long t0 = System.nanoTime();
            Alignment alignment = new Alignment(stored, runId, "t");
            int remainder = 0;
            for (JsonObject c : translate(sandbox, journal)) {
                if (alignment.offer(c).isPresent()) {
                    remainder++;
                }
            }
            alignment.finish();
            double seconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf(
                    Locale.ROOT,
                    "| replay + alignment of a %,d-line journal (follow read from byte 0, translate, align %,d stored chunks) | %.2f s | remainder %d chunk(s) |%n",
                    lines,
                    stored.size(),
                    seconds,
                    remainder);
            launcher.delete(sandbox, runId);
        } finally {
            sandbox.destroy();
            provider.close();
        }
    }

    private static List<JsonObject> translate(SandboxHandle sandbox, JournalId journal) {
        HarnessTranslator t = Harness.COMMAND.translator(journal.runId(), "t", () -> 0L);
        List<JsonObject> chunks = new ArrayList<>(t.onStart());
        try (JournalReader reader = JournalReader.open(sandbox, journal, 0)) {
            while (true) {
                JournalReader.Batch b = reader.poll(Duration.ofMillis(250));
                for (JournalLine line : b.lines()) {
                    chunks.addAll(t.onLine(line.text()));
                }
                if (b.exitCode().isPresent()) {
                    chunks.addAll(t.onExit(b.exitCode().getAsInt(), ""));
                    return chunks;
                }
            }
        }
    }
}
