package dev.agentbox.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Event;
import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.FileRead;
import dev.agentbox.sandbox.spi.FileTooLargeException;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxFileNotFoundException;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxOperationException;
import dev.agentbox.sandbox.spi.SandboxProcess;
import dev.agentbox.testing.NeedsDocker;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The sandbox channel against a real engine: which path commands take, and what a dead, missing or
 * hostile helper costs (docs/sandbox-channel.md; docs/behavior.md SC-01..SC-07, SC-11).
 */
@NeedsDocker
class DockerChannelTest {

    private static final String IMAGE = "agentbox/sandbox:bookworm";

    private final String runKey = "channel-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<DockerSandboxProvider> providers = new ArrayList<>();
    private final List<String> made = new ArrayList<>();
    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Handler capture =
            new Handler() {
                @Override
                public void publish(LogRecord r) {
                    logged.add(r);
                }

                @Override
                public void flush() {}

                @Override
                public void close() {}
            };

    private DockerSandboxProvider provider(boolean channel) {
        DockerSandboxProvider p =
                new DockerSandboxProvider(
                        DockerSettings.builder()
                                .image(IMAGE)
                                .channel(
                                        channel
                                                ? ChannelSettings.defaults()
                                                : ChannelSettings.disabled())
                                .build(),
                        new DaemonThreads("channel-test"),
                        Clock.systemUTC());
        providers.add(p);
        return p;
    }

    private SandboxHandle create(DockerSandboxProvider p, String suffix) {
        SandboxHandle h =
                p.create(
                        SandboxCreateInput.defaults()
                                .withKey(runKey + "-" + suffix, "tenant-channel")
                                .withRequestedId(runKey + "-" + suffix));
        made.add(h.id());
        return h;
    }

    @AfterEach
    void cleanUp() {
        Logger.getLogger(SandboxChannels.class.getName()).removeHandler(capture);
        Logger.getLogger("dev.agentbox.sandbox.channel.SandboxChannel").removeHandler(capture);
        DockerSandboxProvider any = providers.get(0);
        for (String id : made) {
            try {
                any.destroy(id);
            } catch (RuntimeException e) {
                // best effort
            }
        }
        providers.forEach(DockerSandboxProvider::close);
    }

    private void captureLogs() {
        Logger.getLogger(SandboxChannels.class.getName()).addHandler(capture);
        Logger.getLogger("dev.agentbox.sandbox.channel.SandboxChannel").addHandler(capture);
    }

    private boolean warned(String fragment) {
        return logged.stream()
                .anyMatch(r -> r.getLevel() == Level.WARNING && format(r).contains(fragment));
    }

    private static String format(LogRecord r) {
        return new java.util.logging.SimpleFormatter().formatMessage(r);
    }

    @Test
    @DisplayName(
            "with a channel, execs, file operations, spawns, stdin and kills never ask the engine for an exec")
    void hotPathsDoNotUseTheEngineExec() throws Exception {
        DockerSandboxProvider p = provider(true);
        SandboxHandle sb = create(p, "hot");
        List<Event> execEvents = new CopyOnWriteArrayList<>();
        ResultCallback.Adapter<Event> events =
                p.engine()
                        .client()
                        .eventsCmd()
                        .withContainerFilter(sb.id())
                        .exec(
                                new ResultCallback.Adapter<>() {
                                    @Override
                                    public void onNext(Event e) {
                                        if (e.getAction() != null
                                                && e.getAction().startsWith("exec_")) {
                                            execEvents.add(e);
                                        }
                                    }
                                });
        try {
            // The subscription is live once it delivers an exec of our own (a fence).
            List<String> fences = new CopyOnWriteArrayList<>();
            engineExecFence(p, sb, execEvents, fences);
            assertThat(sb.process().exec("echo hi; echo err >&2; exit 3"))
                    .isEqualTo(new ExecResult("hi\n", "err\n", 3, false));
            sb.fs().write("d/a.txt", "hello".getBytes(StandardCharsets.UTF_8));
            assertThat(new String(sb.fs().readBytes("d/a.txt"), StandardCharsets.UTF_8))
                    .isEqualTo("hello");
            assertThat(sb.fs().list("d")).extracting(e -> e.name()).containsExactly("a.txt");
            assertThat(sb.fs().exists("d/a.txt")).isTrue();
            assertThat(sb.fs().lstat("d/a.txt")).isPresent();
            sb.fs().mkdir("e/f");
            sb.fs().rename("d/a.txt", "e/f/b.txt");
            sb.fs().remove("d");
            assertThat(sb.fs().exists("d")).isFalse();
            SandboxProcess cat = sb.process().spawn("cat; echo done");
            StringBuffer out = new StringBuffer();
            cat.subscribe(c -> out.append(c.text()));
            cat.writeStdin("ping\n");
            cat.closeStdin();
            assertThat(cat.waitFor(Duration.ofSeconds(10))).hasValue(0);
            assertThat(out.toString()).isEqualTo("ping\ndone\n");
            SandboxProcess sleeper = sb.process().spawn("sleep 1000");
            sleeper.kill();
            assertThat(sleeper.waitFor(Duration.ofSeconds(10))).isPresent();
            // The engine publishes events in order: once the second fence's exec_die has
            // arrived, so has any exec event of the operations above.
            engineExecFence(p, sb, execEvents, fences);
            assertThat(execEvents)
                    .filteredOn(e -> !fences.contains(execId(e)))
                    .extracting(Event::getAction)
                    .as("engine execs during channel operations")
                    .isEmpty();
        } finally {
            events.close();
        }
    }

    /**
     * Runs {@code true} through the engine's own exec in {@code sb} until the events subscription
     * has delivered one such exec's {@code exec_die}, its last event (the subscription may not be
     * live yet for the first ones: they are repeated). Adds every exec id it made to {@code
     * fences}.
     */
    private static void engineExecFence(
            DockerSandboxProvider p, SandboxHandle sb, List<Event> execEvents, List<String> fences)
            throws InterruptedException {
        var client = p.engine().client();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            String id = client.execCreateCmd(sb.id()).withCmd("true").exec().getId();
            fences.add(id);
            client.execStartCmd(id).exec(new ResultCallback.Adapter<>()).awaitCompletion();
            try {
                await().atMost(Duration.ofSeconds(2))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> execEvents.stream().anyMatch(e -> diedExec(e, id)));
                return;
            } catch (ConditionTimeoutException notYet) {
                assertThat(System.nanoTime())
                        .as("an engine exec is seen by the events subscription")
                        .isLessThan(deadline);
            }
        }
    }

    private static boolean diedExec(Event e, String id) {
        return id.equals(execId(e)) && e.getAction().startsWith("exec_die");
    }

    private static String execId(Event e) {
        return e.getActor() == null || e.getActor().getAttributes() == null
                ? null
                : e.getActor().getAttributes().get("execID");
    }

    @Test
    @DisplayName(
            "the helper killed mid-exec: that exec fails clearly (503, no hang) and the next exec works")
    void helperKilledMidExecFailsClearlyAndTheNextExecWorks() {
        DockerSandboxProvider p = provider(true);
        SandboxHandle sb = create(p, "kill");
        // The command's parent is the helper's handler of this connection, whose parent is the
        // helper's server: both are killed (the supervisor restarts the server).
        long t0 = System.nanoTime();
        assertThatThrownBy(
                        () ->
                                sb.process()
                                        .exec(
                                                "sleep 0.3; server=$(cut -d' ' -f4 /proc/$PPID/stat);"
                                                        + " kill -KILL $PPID $server; sleep 30"))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.code()).isEqualTo(ProblemCode.PROVIDER_UNAVAILABLE);
                            assertThat(e.getMessage()).contains("cut off");
                        });
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
        assertThat(sb.process().exec("echo again").stdout()).isEqualTo("again\n");
        await().atMost(Duration.ofSeconds(10)).until(() -> p.channels().of(sb.id()).isPresent());
        assertThat(sb.process().exec("echo restarted").stdout()).isEqualTo("restarted\n");
    }

    /** SC-13: a channel command leads its own process group with no signal blocked or ignored. */
    @Test
    @DisplayName(
            "a command over the channel starts as a docker exec would: leading its own group, no signal blocked or ignored")
    void aChannelCommandStartsWithADockerExecsProcessState() {
        DockerSandboxProvider p = provider(true);
        SandboxHandle sb = create(p, "state");
        assertThat(p.channels().of(sb.id())).isPresent();
        // The helper itself ignores SIGPIPE and blocks SIGCHLD (and every signal across the
        // vfork that starts the command): none of it may reach the command. Read by the command's
        // own process through exec, not by a child of the shell: the shell blocks every signal
        // around its forks, and a child reading the shell's status at that moment sees it so.
        String state =
                sb.process().exec("exec grep -E '^Sig(Blk|Ign):' /proc/self/status").stdout();
        assertThat(state)
                .contains("SigBlk:\t0000000000000000")
                .contains("SigIgn:\t0000000000000000");
        String leader =
                sb.process()
                        .exec("[ \"$(cut -d' ' -f5 /proc/$$/stat)\" = $$ ] && echo leader")
                        .stdout();
        assertThat(leader).contains("leader");
    }

    /** SC-14: a read is admitted by the stat its own request answers. */
    @Test
    @DisplayName(
            "a read's admission and its bytes come from one request: a directory, a device, a FIFO, a missing or an oversized file are refused as their stat would be")
    void aReadIsAdmittedByTheStatItsOwnRequestAnswers() throws Exception {
        DockerSandboxProvider p = provider(true);
        SandboxHandle sb = create(p, "read");
        assertThat(p.channels().of(sb.id())).isPresent();
        assertThat(sb.process().exec("mkdir -p /workspace/d && mkfifo /workspace/f").exitCode())
                .isZero();
        sb.fs().write("/workspace/x.bin", "0123456789".getBytes(StandardCharsets.UTF_8));

        FileRead read = sb.fs().openRead("/workspace/x.bin", 10);
        assertThat(read.size()).isEqualTo(10);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        read.transferTo(out);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("0123456789");

        assertThatThrownBy(() -> sb.fs().openRead("/workspace/x.bin", 9))
                .isInstanceOf(FileTooLargeException.class);
        assertThatThrownBy(() -> sb.fs().openRead("/dev/zero", 100))
                .isInstanceOf(FileTooLargeException.class)
                .hasMessageContaining("character device");
        assertThatThrownBy(() -> sb.fs().openRead("/workspace/f", 100))
                .isInstanceOf(FileTooLargeException.class)
                .hasMessageContaining("FIFO");
        assertThatThrownBy(() -> sb.fs().openRead("/workspace/d", 100))
                .isInstanceOf(SandboxOperationException.class)
                .hasMessageContaining("directory");
        assertThatThrownBy(() -> sb.fs().openRead("/workspace/none", 100))
                .isInstanceOf(SandboxFileNotFoundException.class);
        assertThat(p.channels().of(sb.id()))
                .as("refusals are no failure of the channel")
                .isPresent();
    }

    @Test
    @DisplayName(
            "a helper that sends an oversized frame: the exec fails, the server logs, later operations fall back to the engine")
    void oversizedFrameClosesTheChannelAndFallsBack() throws Exception {
        captureLogs();
        DockerSandboxProvider p = provider(true);
        SandboxHandle sb = create(p, "big");
        Path socket = p.channels().folder(sb.id()).resolve(SandboxChannels.SOCKET);
        assertThat(p.channels().of(sb.id())).isPresent();
        // A hostile helper in its place: the right hello, then a frame over the limit.
        Files.delete(socket);
        try (ServerSocketChannel fake = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            fake.bind(UnixDomainSocketAddress.of(socket));
            Thread server =
                    new Thread(
                            () -> {
                                while (fake.isOpen()) {
                                    try (SocketChannel c = fake.accept()) {
                                        ByteBuffer in = ByteBuffer.allocate(4096);
                                        c.read(in);
                                        byte[] v =
                                                "agentbox-sandboxd/1"
                                                        .getBytes(StandardCharsets.UTF_8);
                                        c.write(
                                                ByteBuffer.allocate(5 + v.length)
                                                        .put((byte) 'H')
                                                        .putInt(v.length)
                                                        .put(v)
                                                        .flip());
                                        c.read(in);
                                        c.write(
                                                ByteBuffer.allocate(5)
                                                        .put((byte) 'O')
                                                        .putInt(64 << 20)
                                                        .flip());
                                        Thread.sleep(200);
                                    } catch (IOException | InterruptedException e) {
                                        return;
                                    }
                                }
                            });
            server.setDaemon(true);
            server.start();
            assertThatThrownBy(() -> sb.process().exec("echo hi"))
                    .isInstanceOfSatisfying(
                            ProblemException.class,
                            e -> assertThat(e.code()).isEqualTo(ProblemCode.PROVIDER_UNAVAILABLE));
            assertThat(warned("over the limit")).as("logged").isTrue();
            // backing off: the engine answers, with the real container's own results
            assertThat(sb.process().exec("echo via-engine").stdout()).isEqualTo("via-engine\n");
            assertThat(sb.fs().exists("/etc/hostname")).isTrue();
            assertThat(sb.capabilities().writableStdin()).isFalse();
        }
    }

    @Test
    @DisplayName(
            "the sandbox swaps its socket for a link to a host socket: the link is never followed, commands go through the engine")
    void aLinkInPlaceOfTheSocketIsNotFollowed() throws Exception {
        DockerSandboxProvider p = provider(true);
        SandboxHandle sb = create(p, "link");
        Path hostTarget = Files.createTempDirectory("channel-target");
        Path bait = hostTarget.resolve("bait.sock");
        try (ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            listener.bind(UnixDomainSocketAddress.of(bait));
            listener.configureBlocking(false);
            sb.process()
                    .exec(
                            "rm -f /run/agentbox/sandboxd.sock && ln -s "
                                    + bait
                                    + " /run/agentbox/sandboxd.sock");
            assertThat(Files.isSymbolicLink(p.channels().folder(sb.id()).resolve("sandboxd.sock")))
                    .isTrue();
            assertThat(sb.process().exec("echo engine").stdout()).isEqualTo("engine\n");
            assertThat(sb.fs().exists("/etc/hostname")).isTrue();
            assertThat(listener.accept()).as("nothing connected to the host socket").isNull();
        } finally {
            Files.deleteIfExists(bait);
            Files.deleteIfExists(hostTarget);
        }
    }

    @Test
    @DisplayName(
            "a resumed sandbox whose socket folder is missing falls back with one WARN; the next create has its channel")
    void missingSocketFolderOnResumeFallsBackWithAWarning() throws Exception {
        captureLogs();
        DockerSandboxProvider first = provider(true);
        SandboxHandle sb = create(first, "gone");
        Path folder = first.channels().folder(sb.id());
        // as after a host reboot that emptied the folder's parent
        try (var walk = Files.walk(folder)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
        DockerSandboxProvider second = provider(true);
        SandboxHandle resumed = second.resume(sb.id()).orElseThrow();
        assertThat(resumed.process().exec("echo fallback").stdout()).isEqualTo("fallback\n");
        assertThat(resumed.process().exec("echo twice").stdout()).isEqualTo("twice\n");
        assertThat(logged.stream().filter(r -> format(r).contains("socket folder")).count())
                .as("one WARN for the missing folder")
                .isEqualTo(1);
        SandboxHandle fresh = create(second, "fresh");
        assertThat(second.channels().of(fresh.id())).isPresent();
        assertThat(fresh.process().exec("echo channel").stdout()).isEqualTo("channel\n");
    }

    @Test
    @DisplayName(
            "a spare connection proves nothing once its container stopped: the sandbox does not answer, and resume starts it again")
    void aSpareOfAStoppedContainerIsNotTrusted() {
        DockerSandboxProvider p = provider(true);
        SandboxHandle sb = create(p, "spare");
        assertThat(sb.process().exec("true").exitCode()).isZero();
        SandboxChannel ch = p.channels().of(sb.id()).orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(ch::hasSpare);
        assertThat(ch.answers()).isTrue();
        p.engine().client().stopContainerCmd(sb.id()).withTimeout(1).exec();
        assertThat(ch.answers()).as("the spare's handler died with the container").isFalse();
        SandboxHandle again = p.resume(sb.id()).orElseThrow();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () ->
                                assertThat(again.process().exec("echo back").stdout())
                                        .isEqualTo("back\n"));
    }

    @Test
    @DisplayName("a container created without a channel keeps working, silently through the engine")
    void containersWithoutAChannelKeepWorking() {
        captureLogs();
        SandboxHandle old = create(provider(false), "old");
        DockerSandboxProvider now = provider(true);
        SandboxHandle resumed = now.resume(old.id()).orElseThrow();
        assertThat(now.channels().of(old.id())).isEmpty();
        assertThat(resumed.process().exec("echo old").stdout()).isEqualTo("old\n");
        resumed.fs().write("x.txt", new byte[] {1, 2, 3});
        assertThat(resumed.fs().readBytes("x.txt")).containsExactly(1, 2, 3);
        assertThat(logged)
                .extracting(DockerChannelTest::format)
                .noneMatch(m -> m.contains(old.id()));
    }

    @Test
    @DisplayName(
            "a create that finds its name taken leaves the live sandbox's socket folder and channel alone")
    void aTakenNameLeavesTheLiveChannelAlone() {
        DockerSandboxProvider p = provider(true);
        SandboxHandle sb = create(p, "taken");
        assertThatThrownBy(() -> create(p, "taken"))
                .isInstanceOf(dev.agentbox.sandbox.spi.SandboxExistsException.class);
        assertThat(p.channels().folder(sb.id()).resolve(SandboxChannels.SOCKET)).exists();
        assertThat(p.channels().of(sb.id())).isPresent();
        assertThat(sb.process().exec("echo still").stdout()).isEqualTo("still\n");
    }

    @Test
    @DisplayName("the socket folder is the server's alone (0700) and is removed with the sandbox")
    void socketFolderIsPrivateAndRemovedWithTheSandbox() throws Exception {
        DockerSandboxProvider p = provider(true);
        SandboxHandle sb = create(p, "private");
        Path folder = p.channels().folder(sb.id());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)))
                .isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(folder.getParent())))
                .isEqualTo("rwx------");
        assertThat(
                        PosixFilePermissions.toString(
                                Files.getPosixFilePermissions(folder.resolve("sandboxd.sock"))))
                .isEqualTo("rw-------");
        p.destroy(sb.id());
        assertThat(folder).doesNotExist();
    }
}
