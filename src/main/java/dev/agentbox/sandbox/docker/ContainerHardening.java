package dev.agentbox.sandbox.docker;

import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Mount;
import com.github.dockerjava.api.model.MountType;
import com.github.dockerjava.api.model.Ulimit;
import java.util.List;
import java.util.Map;

/**
 * The configurable part of a sandbox container's profile (docs/hardening.md); the fixed part
 * (capabilities, no-new-privileges, init, limits) stays in {@link DockerSandboxProvider}.
 *
 * <ul>
 *   <li>By default: an open-files limit, soft = hard, so a process cannot raise it (it must not
 *       exceed dockerd's own hard limit, or no container starts).
 *   <li>Read-only root (opt-in): the image's files cannot be changed; {@code /workspace} is an
 *       anonymous volume (removed with the container) and {@code /tmp} and {@code /root} are tmpfs.
 *       Opt-in because {@code docker commit} keeps neither volumes nor tmpfs: snapshots and forks
 *       would come back with an empty workspace and no journals.
 *   <li>Writable-layer size (opt-in): only overlay2 on xfs with {@code pquota} supports it; on any
 *       other storage the engine refuses every create, so it stays off unless configured.
 * </ul>
 */
final class ContainerHardening {

    /** tmpfs options: exec, because agents run scripts from /tmp; nosuid and nodev regardless. */
    static final String TMPFS_OPTIONS = "rw,exec,nosuid,nodev,mode=1777";

    private ContainerHardening() {}

    static void apply(DockerSettings.Hardening h, HostConfig host) {
        if (h.nofile() > 0) {
            host.withUlimits(List.of(new Ulimit("nofile", h.nofile(), h.nofile())));
        }
        if (h.readOnlyRoot()) {
            host.withReadonlyRootfs(true)
                    .withTmpFs(
                            Map.of(
                                    "/tmp",
                                    TMPFS_OPTIONS,
                                    "/root",
                                    "rw,exec,nosuid,nodev,mode=0700"))
                    .withMounts(
                            List.of(
                                    new Mount()
                                            .withType(MountType.VOLUME)
                                            .withTarget(DockerSandboxProvider.WORKSPACE)));
        }
        h.storageSize().ifPresent(size -> host.withStorageOpt(Map.of("size", size)));
    }
}
