package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.FileRead;
import dev.agentbox.sandbox.spi.FsEntry;
import dev.agentbox.sandbox.spi.FsStat;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxCapabilities.Capability;
import dev.agentbox.sandbox.spi.SandboxEnv;
import dev.agentbox.sandbox.spi.SandboxFs;
import dev.agentbox.sandbox.spi.SandboxPorts;
import dev.agentbox.sandbox.spi.SandboxProcess;
import dev.agentbox.sandbox.spi.SandboxProcesses;
import dev.agentbox.sandbox.spi.UnsupportedCapabilityException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a pod's sandbox cannot do: every operation throws {@link UnsupportedCapabilityException}
 * naming the capability it would need, never a silent no-op. Only its ports are used (nothing
 * publishes a pod's port through agentbox yet); its other parts stay for a provider state without
 * any data path.
 */
final class NoDataPath implements SandboxFs, SandboxProcesses, SandboxEnv, SandboxPorts {

    private final String provider;

    NoDataPath(String provider) {
        this.provider = provider;
    }

    private UnsupportedCapabilityException lacks(Capability c) {
        return new UnsupportedCapabilityException(provider, c);
    }

    @Override
    public byte[] readBytes(String path) {
        throw lacks(Capability.FS);
    }

    @Override
    public FileRead openRead(String path, long maxBytes) {
        throw lacks(Capability.FS);
    }

    @Override
    public void write(String path, byte[] data) {
        throw lacks(Capability.FS);
    }

    @Override
    public void writeArchive(String dir, InputStream tar) {
        throw lacks(Capability.FS);
    }

    @Override
    public List<FsEntry> list(String path) {
        throw lacks(Capability.FS);
    }

    @Override
    public void mkdir(String path) {
        throw lacks(Capability.FS);
    }

    @Override
    public void remove(String path) {
        throw lacks(Capability.FS);
    }

    @Override
    public void rename(String from, String to) {
        throw lacks(Capability.FS);
    }

    @Override
    public boolean exists(String path) {
        throw lacks(Capability.FS);
    }

    @Override
    public Optional<FsStat> lstat(String path) {
        throw lacks(Capability.FS);
    }

    @Override
    public ExecResult exec(String command, ProcessOptions options) {
        throw lacks(Capability.EXEC);
    }

    @Override
    public SandboxProcess spawn(String command, ProcessOptions options) {
        throw lacks(Capability.BACKGROUND_PROCESSES);
    }

    @Override
    public void set(Map<String, String> vars) {
        throw lacks(Capability.ENV);
    }

    @Override
    public Optional<Channel> published(int port) {
        return Optional.empty();
    }

    @Override
    public InetSocketAddress address(int port) {
        throw lacks(Capability.PORTS);
    }
}
