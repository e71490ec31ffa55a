package dev.agentbox.sandbox.docker;

import static dev.agentbox.sandbox.datapath.BoundedExecs.utf8;

import com.github.dockerjava.api.exception.NotFoundException;
import dev.agentbox.platform.Incident;
import dev.agentbox.sandbox.datapath.BoundedExecs;
import dev.agentbox.sandbox.datapath.BoundedExecs.Outcome;
import dev.agentbox.sandbox.datapath.ChannelFs;
import dev.agentbox.sandbox.datapath.ProcessGroups;
import dev.agentbox.sandbox.spi.FileRead;
import dev.agentbox.sandbox.spi.FsEntry;
import dev.agentbox.sandbox.spi.FsStat;
import dev.agentbox.sandbox.spi.SandboxFileNotFoundException;
import dev.agentbox.sandbox.spi.SandboxOperationException;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A container's files the engine's way, where there is no sandbox channel: small POSIX shell
 * scripts (GNU coreutils and BusyBox alike) run as bounded execs, streamed reads ({@link
 * DockerFileRead}), and tar uploads for writes.
 *
 * <p>Invariants: every script gets its paths as positional parameters, never spliced into the
 * script; a sandbox that stalls or floods an operation gets an error within the internal deadline,
 * and its command is killed; the engine's own words about a refused write stay in the log.
 */
final class EngineFs {

    private static final Logger LOG = Logger.getLogger(DockerFs.class.getName());

    private final DockerSandboxProvider provider;
    private final String name;
    private final BoundedExecs execs;
    private final ProcessGroups groups;

    EngineFs(
            DockerSandboxProvider provider, String name, BoundedExecs execs, ProcessGroups groups) {
        this.provider = provider;
        this.name = name;
        this.execs = execs;
        this.groups = groups;
    }

    DockerSandboxProvider providerBean() {
        return provider;
    }

    private Outcome script(String script, String... args) {
        return execs.script(script, args);
    }

    /** Admission by {@code stat -L} (type and size of what the read would open), then the read. */
    FileRead openRead(String p, long maxBytes) {
        Outcome r = script("[ -e \"$1\" ] || exit 2; exec stat -L -c '%f %s' -- \"$1\"", p);
        if (r.exitCode() == 2) {
            throw new SandboxFileNotFoundException(p);
        }
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("read " + p, utf8(r.stderr()));
        }
        String[] parts = utf8(r.stdout()).strip().split(" ");
        FsStat st = FsStat.fromMode(Integer.parseInt(parts[0], 16), Long.parseLong(parts[1]));
        return new DockerFileRead(this, p, ChannelFs.admit(p, st, maxBytes), maxBytes);
    }

    /**
     * Starts the reading command of a {@link DockerFileRead}: wrapped, so it can be killed as a
     * group.
     */
    DockerEngine.StreamCall startRead(String pid, String path, long maxBytes) {
        // -f again right before the read narrows the window for a FIFO swapped in after the
        // stat; head -c bounds a file that grew. What remains (a swap between the two) is
        // caught by the reader's silence deadline and byte count.
        return provider.engine()
                .startStream(
                        name,
                        ProcessGroups.boundedWrapper(
                                pid,
                                List.of(
                                        "[ -f \"$1\" ] || exit 5; exec head -c "
                                                + (maxBytes + 1)
                                                + " -- \"$1\"",
                                        path)),
                        List.of("LC_ALL=C"),
                        "/");
    }

    void kill(String pid) {
        groups.killLater(pid);
    }

    String newReadId() {
        return ProcessGroups.newProcessId();
    }

    void write(String p, byte[] data) {
        byte[] tar = TarFiles.of(java.util.Map.of(p, data));
        try {
            DockerEngine.run(
                    "copy to container",
                    () ->
                            provider.engine()
                                    .client()
                                    .copyArchiveToContainerCmd(name)
                                    .withRemotePath("/")
                                    .withNoOverwriteDirNonDir(true)
                                    .withTarInputStream(new ByteArrayInputStream(tar))
                                    .exec());
        } catch (NotFoundException e) {
            throw DockerEngine.gone(name, e);
        } catch (com.github.dockerjava.api.exception.DockerException e) {
            // The engine's response body is for the log; the caller learns which write failed.
            Incident incident =
                    Incident.log(LOG, Level.WARNING, "write " + p + " in " + name + " failed", e);
            throw new SandboxOperationException(
                    "write " + p, incident.text("the Docker engine refused the copy"));
        }
    }

    /**
     * The engine unpacks the archive into {@code p} ({@code PUT /archive}); it refuses an entry
     * that climbs out of {@code p} and, with {@code copyUIDGID}, gives every file to the
     * container's user.
     */
    void writeArchive(String p, InputStream tar) {
        try {
            DockerEngine.run(
                    "copy archive to container",
                    () ->
                            provider.engine()
                                    .client()
                                    .copyArchiveToContainerCmd(name)
                                    .withRemotePath(p)
                                    .withNoOverwriteDirNonDir(true)
                                    .withCopyUIDGID(true)
                                    .withTarInputStream(tar)
                                    .exec());
        } catch (NotFoundException e) {
            throw DockerEngine.gone(name, e);
        } catch (com.github.dockerjava.api.exception.DockerException e) {
            Incident incident =
                    Incident.log(
                            LOG, Level.WARNING, "archive into " + p + " in " + name + " failed", e);
            throw new SandboxOperationException(
                    "write archive into " + p, incident.text("the Docker engine refused the copy"));
        }
    }

    List<FsEntry> list(String p) {
        Outcome r =
                script(
                        "[ -e \"$1\" ] || exit 2; cd -- \"$1\" || exit 3; "
                                + "for f in * .*; do case \"$f\" in .|..) continue;; esac; "
                                + "if [ -L \"$f\" ]; then t=f; elif [ -d \"$f\" ]; then t=d; elif [ -e \"$f\" ]; then t=f; else continue; fi; "
                                + "printf '%s/%s\\0' \"$t\" \"$f\"; done",
                        p);
        if (r.exitCode() == 2) {
            throw new SandboxFileNotFoundException(p);
        }
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("list " + p, utf8(r.stderr()));
        }
        return ChannelFs.entries(p, utf8(r.stdout()));
    }

    void mkdir(String p) {
        Outcome r = script("mkdir -p -- \"$1\"", p);
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("mkdir " + p, utf8(r.stderr()));
        }
    }

    void remove(String p) {
        Outcome r = script("rm -rf -- \"$1\"", p);
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("remove " + p, utf8(r.stderr()));
        }
    }

    void rename(String f, String t) {
        Outcome r =
                script(
                        "{ [ -e \"$1\" ] || [ -L \"$1\" ]; } || exit 2; "
                                + "mkdir -p -- \"$(dirname -- \"$2\")\" && mv -f -- \"$1\" \"$2\"",
                        f,
                        t);
        if (r.exitCode() == 2) {
            throw new SandboxFileNotFoundException(f);
        }
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("rename " + f + " to " + t, utf8(r.stderr()));
        }
    }

    boolean exists(String p) {
        return script("[ -e \"$1\" ]", p).exitCode() == 0;
    }

    Optional<FsStat> lstat(String p) {
        Outcome r = script("exec stat -c '%f %s' -- \"$1\"", p);
        if (r.exitCode() == 0) {
            String[] parts = utf8(r.stdout()).strip().split(" ");
            return Optional.of(
                    FsStat.fromMode(Integer.parseInt(parts[0], 16), Long.parseLong(parts[1])));
        }
        String err = utf8(r.stderr());
        if (err.contains("No such file or directory")) {
            return Optional.empty();
        }
        throw new SandboxOperationException("lstat " + p, err);
    }
}
