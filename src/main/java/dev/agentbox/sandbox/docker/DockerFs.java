package dev.agentbox.sandbox.docker;

import static dev.agentbox.sandbox.docker.DockerSandbox.abs;

import dev.agentbox.sandbox.datapath.BoundedExecs;
import dev.agentbox.sandbox.datapath.ChannelFs;
import dev.agentbox.sandbox.datapath.ProcessGroups;
import dev.agentbox.sandbox.spi.FileFollow;
import dev.agentbox.sandbox.spi.FileRead;
import dev.agentbox.sandbox.spi.FsEntry;
import dev.agentbox.sandbox.spi.FsStat;
import dev.agentbox.sandbox.spi.SandboxFs;
import dev.agentbox.sandbox.spi.SandboxLimits;
import dev.agentbox.sandbox.spi.SandboxOperationException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;

/**
 * The filesystem of one container: over the sandbox channel when it has one ({@link ChannelFs}),
 * otherwise the engine's way ({@link EngineFs}) — with the same results and the same errors either
 * way. Relative paths resolve against the workspace.
 */
final class DockerFs implements SandboxFs {

    private final DockerSandboxProvider provider;
    private final ChannelFs channel;
    private final EngineFs engine;

    DockerFs(
            DockerSandboxProvider provider, String name, BoundedExecs execs, ProcessGroups groups) {
        this.provider = provider;
        this.channel = new ChannelFs(name, provider.limits(), () -> provider.channels().of(name));
        this.engine = new EngineFs(provider, name, execs, groups);
    }

    private SandboxLimits limits() {
        return provider.limits();
    }

    /** Over the channel only: the engine has no push for a file. */
    @Override
    public Optional<FileFollow> follow(String path, long offset) {
        return channel.follow(abs(path), offset);
    }

    @Override
    public byte[] readBytes(String path) {
        FileRead read = openRead(path, limits().maxReadBytes());
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(read.size(), 1 << 20));
        try {
            read.transferTo(out);
        } catch (IOException e) {
            throw new SandboxOperationException("read " + abs(path), e.getMessage());
        }
        return out.toByteArray();
    }

    /**
     * Admission first (type and size of what a read would open), then a bounded stream; see {@link
     * FileRead}.
     */
    @Override
    public FileRead openRead(String path, long maxBytes) {
        String p = abs(path);
        return channel.openRead(p, maxBytes).orElseGet(() -> engine.openRead(p, maxBytes));
    }

    @Override
    public void write(String path, byte[] data) {
        String p = abs(path);
        if (!channel.write(p, data)) {
            engine.write(p, data);
        }
    }

    /** {@code mkdir -p}, then the engine unpacks the archive (see {@link EngineFs}). */
    @Override
    public void writeArchive(String dir, InputStream tar) {
        mkdir(dir);
        engine.writeArchive(abs(dir), tar);
    }

    @Override
    public List<FsEntry> list(String path) {
        String p = abs(path);
        return channel.list(p).orElseGet(() -> engine.list(p));
    }

    @Override
    public void mkdir(String path) {
        String p = abs(path);
        if (!channel.mkdir(p)) {
            engine.mkdir(p);
        }
    }

    @Override
    public void remove(String path) {
        String p = abs(path);
        if (!channel.remove(p)) {
            engine.remove(p);
        }
    }

    @Override
    public void rename(String from, String to) {
        String f = abs(from);
        String t = abs(to);
        if (!channel.move(f, t)) {
            engine.rename(f, t);
        }
    }

    @Override
    public boolean exists(String path) {
        String p = abs(path);
        return channel.exists(p).orElseGet(() -> engine.exists(p));
    }

    @Override
    public Optional<FsStat> lstat(String path) {
        String p = abs(path);
        return channel.lstat(p).orElseGet(() -> engine.lstat(p));
    }
}
