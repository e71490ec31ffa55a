package dev.agentbox.run.journal;

import dev.agentbox.sandbox.DaemonThreads;
import dev.agentbox.sandbox.SandboxProvider;
import dev.agentbox.sandbox.local.LocalSandboxProvider;
import dev.agentbox.sandbox.local.LocalSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The journal suite on the local-process provider. Its "sandbox" shares the host's /tmp, so
 * the journals go to a directory inside this class's temporary root instead of the standard
 * one (the commands are the same, only the directory differs).
 */
class LocalJournalTest extends JournalReaderContract {

    private Path root;

    @Override
    protected SandboxProvider newProvider() {
        try {
            root = Files.createTempDirectory("agentbox-journal-test").toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new LocalSandboxProvider(new LocalSettings(true, root), new DaemonThreads("test-journal-local"), Clock.systemUTC());
    }

    @Override
    protected JournalCommand commands() {
        return new JournalCommand(root + "/journals");
    }

    @Override
    protected void cleanupExtras() {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
