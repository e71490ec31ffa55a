package dev.agentbox.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Image;
import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.ImageAllowlist;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.spi.SandboxProviderContract;
import dev.agentbox.testing.NeedsDocker;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite against a real Docker engine, plus what only Docker has (hardening, images,
 * the engine being away). Fails, never skips, when the engine is unreachable: creating the shared
 * sandbox throws provider-unavailable.
 */
@NeedsDocker
abstract class DockerProviderContract extends SandboxProviderContract {

    protected abstract String image();

    /**
     * Whether this run's sandboxes use the sandbox channel (the default) or every command goes
     * through the engine's exec: the same suite runs on both paths.
     */
    protected boolean channel() {
        return true;
    }

    protected DockerSandboxProvider docker() {
        return (DockerSandboxProvider) provider;
    }

    protected DockerClient client() {
        return docker().engine().client();
    }

    @Override
    protected SandboxProvider newProvider() {
        return new DockerSandboxProvider(
                DockerSettings.builder()
                        .image(image())
                        .channel(
                                channel() ? ChannelSettings.defaults() : ChannelSettings.disabled())
                        .build(),
                new DaemonThreads("test-docker"),
                Clock.systemUTC());
    }

    @Override
    protected boolean workspaceIsTheBoundary() {
        return false;
    }

    @Override
    protected int servicePort() {
        return 8080;
    }

    @Override
    protected SandboxHandle sandboxForPort(int port) {
        SandboxHandle h =
                provider.create(
                        baseInput()
                                .withPolicy(
                                        SandboxPolicy.defaults()
                                                .withNetwork(SandboxPolicy.Network.BRIDGE)
                                                .withPorts(List.of(port))));
        extra.add(h);
        return h;
    }

    @Override
    protected void removeBehindTheProvidersBack(String id) {
        client().removeContainerCmd(id).withForce(true).exec();
    }

    @Override
    protected void cleanupExtras() {
        List<Image> images =
                client().listImagesCmd()
                        .withLabelFilter(Map.of(SandboxLabels.MANAGED, "true"))
                        .exec();
        for (Image i : images) {
            String of = i.getLabels() == null ? null : i.getLabels().get(SandboxLabels.SNAPSHOT_OF);
            if (of != null && of.contains(runKey)) {
                for (String tag : i.getRepoTags() == null ? new String[0] : i.getRepoTags()) {
                    docker().deleteSnapshot(tag);
                }
            }
        }
        assertThat(
                        client().listImagesCmd()
                                .withLabelFilter(Map.of(SandboxLabels.MANAGED, "true"))
                                .exec())
                .noneMatch(
                        i ->
                                i.getLabels() != null
                                        && String.valueOf(
                                                        i.getLabels()
                                                                .get(SandboxLabels.SNAPSHOT_OF))
                                                .contains(runKey));
    }

    @Test
    @DisplayName(
            "containers are hardened: not privileged, no-new-privileges, caps dropped, limits, init, network none, no mount but the channel's socket folder")
    void hardening() {
        InspectContainerResponse c = client().inspectContainerCmd(sb.id()).exec();
        HostConfig h = c.getHostConfig();
        assertThat(c.getName()).isEqualTo("/agentbox-" + runKey + "-main");
        assertThat(sb.id()).isEqualTo("agentbox-" + runKey + "-main");
        assertThat(h.getPrivileged()).isFalse();
        assertThat(h.getSecurityOpts()).contains("no-new-privileges:true");
        assertThat(Arrays.asList(h.getCapDrop())).extracting(Enum::name).containsExactly("ALL");
        assertThat(Arrays.asList(h.getCapAdd()))
                .extracting(Enum::name)
                .containsExactlyInAnyOrder(
                        "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "KILL");
        assertThat(h.getInit()).isTrue();
        assertThat(h.getPidsLimit()).isEqualTo(512L);
        assertThat(h.getMemory()).isEqualTo(2048L * 1024 * 1024);
        assertThat(h.getNanoCPUs()).isEqualTo(1_000_000_000L);
        assertThat(h.getNetworkMode()).isEqualTo("none");
        assertThat(h.getUlimits())
                .extracting(u -> u.getName() + "=" + u.getSoft() + "/" + u.getHard())
                .containsExactly("nofile=8192/8192");
        assertThat(sb.process().exec("ulimit -n").stdout().strip()).isEqualTo("8192");
        if (channel()) {
            // the one mount: this sandbox's own socket folder, never the engine's socket
            assertThat(c.getMounts())
                    .extracting(m -> m.getSource() + " -> " + m.getDestination().getPath())
                    .containsExactly(
                            docker().channels().folder(sb.id()) + " -> " + SandboxChannels.MOUNT);
            assertThat(c.getConfig().getLabels())
                    .containsEntry(SandboxChannels.CONTAINER_LABEL, "1");
            assertThat(docker().channels().of(sb.id())).as("the channel is used").isPresent();
            assertThat(sb.capabilities().writableStdin()).isTrue();
        } else {
            assertThat(c.getMounts()).isEmpty();
            assertThat(h.getBinds()).isNullOrEmpty();
            assertThat(docker().channels().of(sb.id())).as("no channel").isEmpty();
            assertThat(sb.capabilities().writableStdin()).isFalse();
        }
        assertThat(c.getConfig().getLabels())
                .containsEntry(SandboxLabels.MANAGED, "true")
                .containsEntry(SandboxLabels.KEY, runKey)
                .containsEntry(SandboxLabels.TENANT, "tenant-contract");
        assertThat(c.getConfig().getWorkingDir()).isEqualTo("/workspace");
        assertThat(sb.process().exec("ls /sys/class/net").stdout().strip()).isEqualTo("lo");
        // capability bounding set: CAP_NET_RAW (13) and CAP_SYS_ADMIN (21) are not in it
        String capBnd =
                sb.process()
                        .exec("grep CapBnd /proc/self/status")
                        .stdout()
                        .strip()
                        .split("\\s+")[1];
        long bnd = Long.parseLong(capBnd, 16);
        assertThat(bnd & (1L << 13)).isZero();
        assertThat(bnd & (1L << 21)).isZero();
        assertThat(bnd & (1L << 0)).isNotZero();
    }

    @Test
    @DisplayName(
            "destroying a fork removes its private image; base images are never deleted or restored as snapshots")
    void forkImageLifecycleAndBaseImagesAreSafe() {
        SandboxHandle fork = sb.fork();
        extra.add(fork);
        String forkImage =
                client().inspectContainerCmd(fork.id())
                        .exec()
                        .getConfig()
                        .getLabels()
                        .get(DockerSandboxProvider.FORK_IMAGE);
        assertThat(forkImage).startsWith("agentbox/snapshot:" + sb.id() + "-");
        assertThat(client().inspectContainerCmd(fork.id()).exec().getConfig().getLabels())
                .containsEntry(SandboxLabels.KEY, runKey);
        fork.destroy();
        assertThatThrownBy(() -> client().inspectImageCmd(forkImage).exec())
                .isInstanceOf(com.github.dockerjava.api.exception.NotFoundException.class);

        docker().deleteSnapshot(image());
        assertThat(client().inspectImageCmd(image()).exec().getId()).isNotBlank();
        assertThatThrownBy(() -> provider.restoreSnapshot(image(), baseInput()))
                .isInstanceOf(ProblemException.class)
                .extracting(e -> ((ProblemException) e).status())
                .isEqualTo(404);
    }

    @Test
    @DisplayName(
            "a requested id that is not a valid container name is sanitized with a hash, deterministically")
    void containerNameFromRequestedId() {
        String a = DockerSandboxProvider.containerName("tenant/a b:c");
        assertThat(a).matches("agentbox-tenant-a-b-c-[0-9a-f]{16}");
        assertThat(DockerSandboxProvider.containerName("tenant/a b:c")).isEqualTo(a);
        assertThat(DockerSandboxProvider.containerName("tenant/a b;c")).isNotEqualTo(a);
        assertThat(DockerSandboxProvider.containerName("k-123")).isEqualTo("agentbox-k-123");
    }

    @Test
    @DisplayName(
            "a missing image is an immediate clear error (never a pull) and leaves no container")
    void missingImage() {
        long t0 = System.nanoTime();
        DockerSandboxProvider listing =
                new DockerSandboxProvider(
                        DockerSettings.builder()
                                .image(image())
                                .hardening(
                                        DockerSettings.Hardening.builder()
                                                .images(
                                                        new ImageAllowlist(
                                                                java.util.Set.of(
                                                                        image(),
                                                                        "agentbox/does-not-exist:never")))
                                                .build())
                                .build(),
                        new DaemonThreads("t"),
                        Clock.systemUTC());
        try {
            assertThatThrownBy(
                            () ->
                                    listing.create(
                                            baseInput().withImage("agentbox/does-not-exist:never")))
                    .isInstanceOf(ProblemException.class)
                    .satisfies(
                            e -> {
                                assertThat(((ProblemException) e).code())
                                        .isEqualTo(ProblemCode.INVALID_REQUEST);
                                assertThat(e.getMessage())
                                        .contains("agentbox/does-not-exist:never")
                                        .contains("never pulls");
                            });
        } finally {
            listing.close();
        }
        DockerSandboxProvider misconfigured =
                new DockerSandboxProvider(
                        DockerSettings.builder().image("agentbox/does-not-exist:never").build(),
                        new DaemonThreads("t"),
                        Clock.systemUTC());
        try {
            assertThatThrownBy(() -> misconfigured.create(baseInput()))
                    .isInstanceOf(ProblemException.class)
                    .extracting(e -> ((ProblemException) e).code())
                    .isEqualTo(ProblemCode.PROVIDER_UNAVAILABLE);
        } finally {
            misconfigured.close();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
        assertThat(provider.listManaged())
                .filteredOn(m -> runKey.equals(m.labels().get(SandboxLabels.KEY)))
                .allMatch(m -> !m.id().contains("does-not-exist"));
    }

    @Test
    @DisplayName(
            "create names only allowlisted images: an image id, an id prefix or a snapshot name is image-not-allowed, before the engine")
    void createRefusesImagesOffTheAllowlist() {
        String id = client().inspectImageCmd(image()).exec().getId();
        String hex = id.replaceFirst("^sha256:", "");
        for (String spelling :
                List.of(
                        id,
                        hex,
                        hex.substring(0, 4),
                        "agentbox/snapshot:" + sb.id(),
                        "Agentbox/sandbox:bookworm")) {
            assertThatThrownBy(() -> provider.create(baseInput().withImage(spelling)))
                    .as(spelling)
                    .isInstanceOfSatisfying(
                            ProblemException.class,
                            e -> {
                                assertThat(e.status()).isEqualTo(400);
                                assertThat(e.code()).isEqualTo(ProblemCode.IMAGE_NOT_ALLOWED);
                            });
        }
        SandboxHandle allowed = provider.create(baseInput().withImage(image()));
        extra.add(allowed);
        assertThat(allowed.process().exec("echo ok").stdout()).isEqualTo("ok\n");
    }

    @Test
    @DisplayName(
            "settings the engine refuses at create are 400 invalid-request without the engine's words, and leave no container")
    void engineRefusalIsABadRequestWithASafeDetail() {
        SandboxPolicy tooLittleMemory =
                new SandboxPolicy(
                        SandboxPolicy.Network.NONE,
                        java.util.OptionalInt.of(1),
                        java.util.OptionalDouble.empty(),
                        java.util.OptionalInt.empty(),
                        List.of());
        assertThatThrownBy(
                        () ->
                                provider.create(
                                        baseInput()
                                                .withRequestedId(runKey + "-refused")
                                                .withPolicy(tooLittleMemory)))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.status()).isEqualTo(400);
                            assertThat(e.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
                            assertThat(e.detail())
                                    .contains("incident")
                                    .doesNotContainIgnoringCase("minimum memory");
                            assertThat(e.getCause()).isNull();
                        });
        assertThat(provider.resume("agentbox-" + runKey + "-refused")).isEmpty();
        SandboxPolicy moreCpusThanTheEngine =
                new SandboxPolicy(
                        SandboxPolicy.Network.NONE,
                        java.util.OptionalInt.empty(),
                        java.util.OptionalDouble.of(client().infoCmd().exec().getNCPU() + 1.0),
                        java.util.OptionalInt.empty(),
                        List.of());
        assertThatThrownBy(() -> provider.create(baseInput().withPolicy(moreCpusThanTheEngine)))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.status()).isEqualTo(400);
                            assertThat(e.extensions())
                                    .containsEntry("field", "policy.cpus")
                                    .containsEntry("ceiling", client().infoCmd().exec().getNCPU());
                        });
    }

    @Test
    @DisplayName(
            "a bridge sandbox joins its tenant's network (ICC off, abr- bridge), not the default bridge; its fork joins the same one")
    void bridgeSandboxesUseTheTenantNetworkAndForksKeepIt() {
        SandboxHandle bridged =
                provider.create(
                        baseInput()
                                .withPolicy(
                                        SandboxPolicy.defaults()
                                                .withNetwork(SandboxPolicy.Network.BRIDGE)
                                                .withPorts(List.of(8080))));
        extra.add(bridged);
        HostConfig h = client().inspectContainerCmd(bridged.id()).exec().getHostConfig();
        com.github.dockerjava.api.model.Network net =
                client().inspectNetworkCmd().withNetworkId(h.getNetworkMode()).exec();
        assertThat(net.getName()).isEqualTo(TenantNetworks.networkName("tenant-contract"));
        assertThat(net.getOptions())
                .containsEntry("com.docker.network.bridge.enable_icc", "false")
                .containsEntry(
                        "com.docker.network.bridge.name",
                        TenantNetworks.bridgeName("tenant-contract"));
        assertThat(TenantNetworks.bridgeName("tenant-contract"))
                .hasSizeLessThanOrEqualTo(15)
                .startsWith("abr-");
        assertThat(TenantNetworks.networkName("tenant-contract"))
                .isNotEqualTo(TenantNetworks.networkName("tenant-other"));
        // idempotent: asking again is the same network
        assertThat(docker().networks().ensure("tenant-contract")).isEqualTo(net.getId());

        SandboxHandle fork = bridged.fork();
        extra.add(fork);
        InspectContainerResponse f = client().inspectContainerCmd(fork.id()).exec();
        assertThat(f.getHostConfig().getNetworkMode()).isEqualTo(h.getNetworkMode());
        assertThat(f.getConfig().getExposedPorts())
                .extracting(com.github.dockerjava.api.model.ExposedPort::getPort)
                .containsExactly(8080);
    }

    @Test
    @DisplayName(
            "one tenant name in two installations on one engine gets two networks; the servers of one installation share one")
    void aTenantOfAnotherInstallationOnTheEngineGetsANetworkOfItsOwn() {
        // Fixed ids: the tenant networks stay when idle, so a run reuses the last run's.
        String one = "5b7f5a4e-2c1d-4f0e-9d2a-6a1e3c0b9f01";
        String other = "5b7f5a4e-2c1d-4f0e-9d2a-6a1e3c0b9f02";
        SandboxPolicy bridge = SandboxPolicy.defaults().withNetwork(SandboxPolicy.Network.BRIDGE);
        SandboxHandle a = provider.create(baseInput().withPolicy(bridge).withInstallation(one));
        extra.add(a);
        SandboxHandle a2 = provider.create(baseInput().withPolicy(bridge).withInstallation(one));
        extra.add(a2);
        SandboxHandle b = provider.create(baseInput().withPolicy(bridge).withInstallation(other));
        extra.add(b);
        String netA = networkOf(a);
        assertThat(netA)
                .isEqualTo(
                        TenantNetworks.networkName(
                                NetworkScope.of(java.util.Optional.of(one), "tenant-contract")))
                .isNotEqualTo(TenantNetworks.networkName("tenant-contract"));
        assertThat(networkOf(a2)).isEqualTo(netA);
        assertThat(networkOf(b))
                .isEqualTo(
                        TenantNetworks.networkName(
                                NetworkScope.of(java.util.Optional.of(other), "tenant-contract")))
                .isNotEqualTo(netA);
    }

    private String networkOf(SandboxHandle h) {
        String mode = client().inspectContainerCmd(h.id()).exec().getHostConfig().getNetworkMode();
        return client().inspectNetworkCmd().withNetworkId(mode).exec().getName();
    }

    @Test
    @DisplayName("concurrent first uses of a tenant network create exactly one and all get its id")
    void concurrentFirstUseOfATenantNetworkCreatesOne() throws Exception {
        String tenant = "tenant-race-" + runKey;
        java.util.concurrent.ExecutorService pool =
                java.util.concurrent.Executors.newFixedThreadPool(6);
        try {
            List<java.util.concurrent.Future<String>> ids = new java.util.ArrayList<>();
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            for (int i = 0; i < 6; i++) {
                ids.add(
                        pool.submit(
                                () -> {
                                    go.await();
                                    return docker().networks().ensure(tenant);
                                }));
            }
            go.countDown();
            java.util.Set<String> distinct = new java.util.HashSet<>();
            for (java.util.concurrent.Future<String> f : ids) {
                distinct.add(f.get(60, java.util.concurrent.TimeUnit.SECONDS));
            }
            assertThat(distinct).hasSize(1);
            assertThat(
                            client().listNetworksCmd()
                                    .withNameFilter(TenantNetworks.networkName(tenant))
                                    .exec())
                    .hasSize(1);
        } finally {
            pool.shutdownNow();
            client().listNetworksCmd()
                    .withNameFilter(TenantNetworks.networkName(tenant))
                    .exec()
                    .forEach(n -> client().removeNetworkCmd(n.getId()).exec());
        }
    }

    @Test
    @DisplayName(
            "opt-in read-only root: the image is immutable, /workspace and /tmp are writable, and a snapshot drops the workspace (why it is opt-in)")
    void readOnlyRootKeepsWorkspaceAndTmpWritableButSnapshotsLoseTheWorkspace() {
        List<String> made = new java.util.ArrayList<>();
        DockerSandboxProvider readOnly =
                new DockerSandboxProvider(
                        DockerSettings.builder()
                                .image(image())
                                .hardening(
                                        DockerSettings.Hardening.builder()
                                                .readOnlyRoot(true)
                                                .user("65534:65534")
                                                .build())
                                .build(),
                        new DaemonThreads("t"),
                        Clock.systemUTC());
        try {
            SandboxHandle ro = readOnly.create(baseInput().withRequestedId(runKey + "-ro"));
            made.add(ro.id());
            assertThat(ro.process().exec("id -u").stdout().strip()).isEqualTo("65534");
            assertThat(ro.process().exec("touch /etc/agentbox-test").exitCode()).isNotZero();
            // the anonymous volume belongs to root; a non-root user needs an image that prepares it
            assertThat(ro.process().exec("echo x > /tmp/t && cat /tmp/t").stdout())
                    .isEqualTo("x\n");
            InspectContainerResponse c = client().inspectContainerCmd(ro.id()).exec();
            assertThat(c.getHostConfig().getReadonlyRootfs()).isTrue();
            assertThat(c.getMounts())
                    .extracting(m -> m.getDestination().getPath())
                    .filteredOn(d -> !d.equals(SandboxChannels.MOUNT))
                    .containsExactly("/workspace");
        } finally {
            made.forEach(provider::destroy);
            made.clear();
            readOnly.close();
        }
        DockerSandboxProvider readOnlyRoot =
                new DockerSandboxProvider(
                        DockerSettings.builder()
                                .image(image())
                                .hardening(
                                        DockerSettings.Hardening.builder()
                                                .readOnlyRoot(true)
                                                .build())
                                .build(),
                        new DaemonThreads("t"),
                        Clock.systemUTC());
        try {
            SandboxHandle ro =
                    readOnlyRoot.create(baseInput().withRequestedId(runKey + "-ro-root"));
            made.add(ro.id());
            assertThat(ro.process().exec("echo kept > /workspace/w && cat /workspace/w").stdout())
                    .isEqualTo("kept\n");
            SandboxHandle fork = ro.fork();
            made.add(fork.id());
            assertThat(fork.process().exec("cat /workspace/w").exitCode()).isNotZero();
        } finally {
            made.forEach(provider::destroy);
            readOnlyRoot.close();
        }
    }

    @Test
    @DisplayName(
            "a failure after the container exists (start cannot bind the port) removes the container before the error")
    void failedStartRemovesTheContainer() {
        DockerSandboxProvider unbindable =
                new DockerSandboxProvider(
                        DockerSettings.builder().image(image()).publishHost("203.0.113.1").build(),
                        new DaemonThreads("t"),
                        Clock.systemUTC());
        try {
            assertThatThrownBy(
                            () ->
                                    unbindable.create(
                                            baseInput()
                                                    .withRequestedId(runKey + "-startfail")
                                                    .withPolicy(
                                                            SandboxPolicy.defaults()
                                                                    .withNetwork(
                                                                            SandboxPolicy.Network
                                                                                    .BRIDGE)
                                                                    .withPorts(List.of(8080)))))
                    .isInstanceOf(ProblemException.class)
                    .extracting(e -> ((ProblemException) e).code())
                    .isEqualTo(ProblemCode.PROVIDER_UNAVAILABLE);
            assertThat(provider.resume("agentbox-" + runKey + "-startfail")).isEmpty();
            assertThat(provider.listManaged()).noneMatch(m -> m.id().endsWith("-startfail"));
        } finally {
            unbindable.close();
        }
    }

    @Test
    @DisplayName(
            "an unreachable engine: available() is false quickly and create is provider-unavailable")
    void unreachableEngine() {
        DockerSandboxProvider away =
                new DockerSandboxProvider(
                        DockerSettings.builder()
                                .host("unix:///tmp/agentbox-no-such-docker.sock")
                                .build(),
                        new DaemonThreads("t"),
                        Clock.systemUTC());
        try {
            long t0 = System.nanoTime();
            assertThat(away.available()).isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            assertThatThrownBy(() -> away.create(SandboxCreateInput.defaults()))
                    .isInstanceOf(ProblemException.class)
                    .satisfies(
                            e -> {
                                assertThat(((ProblemException) e).status()).isEqualTo(503);
                                assertThat(((ProblemException) e).code())
                                        .isEqualTo(ProblemCode.PROVIDER_UNAVAILABLE);
                            });
        } finally {
            away.close();
        }
        assertThat(provider.available()).isTrue();
    }
}
