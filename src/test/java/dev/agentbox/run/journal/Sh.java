package dev.agentbox.run.journal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs real shells for the journal tests. */
final class Sh {

    record Result(int exitCode, String stdout, String stderr) {}

    private Sh() {}

    /** /bin/sh (dash or bash here), bash, and BusyBox sh when installed. */
    static List<String> availableShells() {
        List<String> shells = new ArrayList<>();
        shells.add("/bin/sh");
        if (new File("/bin/bash").canExecute()) {
            shells.add("/bin/bash");
        }
        busybox().ifPresent(b -> shells.add(b + " sh"));
        return shells;
    }

    static java.util.Optional<String> busybox() {
        for (String candidate : new String[] {"/bin/busybox", "/usr/bin/busybox"}) {
            if (new File(candidate).canExecute()) {
                return java.util.Optional.of(candidate);
            }
        }
        return java.util.Optional.empty();
    }

    /** Runs {@code argv} (a shell entry like "busybox sh" is split) in {@code cwd}; 20 s bound. */
    static Result run(Path cwd, List<String> argv) throws IOException, InterruptedException {
        return run(cwd, argv, null);
    }

    static Result run(Path cwd, List<String> argv, String path)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.addAll(List.of(argv.get(0).split(" ")));
        command.addAll(argv.subList(1, argv.size()));
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile());
        if (path != null) {
            pb.environment().put("PATH", path);
        }
        Path out = Files.createTempFile(cwd.getParent(), "sh-out", ".txt");
        Path err = Files.createTempFile(cwd.getParent(), "sh-err", ".txt");
        try {
            pb.redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            Process p = pb.start();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("shell did not finish: " + command);
            }
            return new Result(
                    p.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
