package dev.agentbox.sandbox;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.OutputChunk;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxProcess;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Changes under a sandbox's workspace as {@code create|change|delete} events with virtual paths
 * ({@code /workspace/...}). Uses {@code inotifywait} inside the sandbox where the image has it (and
 * the provider can kill it when the watcher closes), else a polling diff of {@code stat} output
 * once a second.
 */
public final class FileWatch implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(FileWatch.class.getName());
    static final String VIRTUAL_ROOT = "/workspace";

    /** One change. */
    public record FileEvent(String type, String path) {}

    private final SandboxHandle handle;
    private final Consumer<FileEvent> listener;
    private final String root;
    private volatile SandboxProcess inotify;
    private volatile ScheduledFuture<?> poller;
    private volatile boolean closed;

    private FileWatch(SandboxHandle handle, Consumer<FileEvent> listener) {
        this.handle = handle;
        this.listener = listener;
        this.root = handle.workspaceRoot();
    }

    public static FileWatch start(
            SandboxHandle handle,
            Consumer<FileEvent> listener,
            ScheduledExecutorService scheduler) {
        FileWatch w = new FileWatch(handle, listener);
        boolean hasInotify =
                handle.capabilities().canFollow()
                        && handle.process()
                                        .exec("command -v inotifywait >/dev/null 2>&1")
                                        .exitCode()
                                == 0;
        if (hasInotify) {
            w.startInotify();
        } else {
            w.startPolling(scheduler);
        }
        return w;
    }

    private void startInotify() {
        // --format: events|path, one per line; -m keeps watching, -r covers new subfolders too.
        SandboxProcess p =
                handle.process()
                        .spawn(
                                "exec inotifywait -m -r -q -e create,modify,close_write,delete,moved_to,moved_from "
                                        + "--format '%e|%w%f' "
                                        + ShellQuote.single(root));
        inotify = p;
        StringBuilder partial = new StringBuilder();
        p.subscribe(
                new SandboxProcess.OutputListener() {
                    @Override
                    public void onOutput(OutputChunk chunk) {
                        if (chunk.stream() != OutputChunk.Stream.STDOUT) {
                            return;
                        }
                        partial.append(chunk.text());
                        int nl;
                        while ((nl = partial.indexOf("\n")) >= 0) {
                            String line = partial.substring(0, nl);
                            partial.delete(0, nl + 1);
                            onInotifyLine(line);
                        }
                    }
                });
    }

    private void onInotifyLine(String line) {
        int bar = line.indexOf('|');
        if (bar < 0) {
            return;
        }
        String events = line.substring(0, bar);
        String path = virtual(line.substring(bar + 1));
        String type =
                events.contains("DELETE") || events.contains("MOVED_FROM")
                        ? "delete"
                        : events.contains("CREATE") || events.contains("MOVED_TO")
                                ? "create"
                                : "change";
        if (events.contains("CLOSE_WRITE") && !events.contains("MODIFY")) {
            return; // reported as MODIFY already (or as CREATE for a new empty file)
        }
        emit(new FileEvent(type, path));
    }

    private void startPolling(ScheduledExecutorService scheduler) {
        Map<String, String> previous = new HashMap<>(scan());
        poller =
                scheduler.scheduleWithFixedDelay(
                        () -> {
                            if (closed) {
                                return;
                            }
                            try {
                                Map<String, String> current = scan();
                                for (Map.Entry<String, String> e : current.entrySet()) {
                                    String before = previous.get(e.getKey());
                                    if (before == null) {
                                        emit(new FileEvent("create", e.getKey()));
                                    } else if (!before.equals(e.getValue())) {
                                        emit(new FileEvent("change", e.getKey()));
                                    }
                                }
                                previous.keySet().stream()
                                        .filter(k -> !current.containsKey(k))
                                        .sorted()
                                        .forEach(k -> emit(new FileEvent("delete", k)));
                                previous.clear();
                                previous.putAll(current);
                            } catch (RuntimeException e) {
                                LOG.fine("file watch poll failed: " + e);
                            }
                        },
                        1,
                        1,
                        TimeUnit.SECONDS);
    }

    /** path → "mtime size" of everything under the root. */
    private Map<String, String> scan() {
        ExecResult r =
                handle.process()
                        .exec(
                                "find "
                                        + ShellQuote.single(root)
                                        + " -mindepth 1 -exec stat -c '%Y %s %n' {} + 2>/dev/null");
        Map<String, String> entries = new HashMap<>();
        for (String line : r.stdout().split("\n")) {
            String[] parts = line.split(" ", 3);
            if (parts.length == 3) {
                entries.put(virtual(parts[2]), parts[0] + " " + parts[1]);
            }
        }
        return entries;
    }

    private String virtual(String real) {
        return real.startsWith(root) ? VIRTUAL_ROOT + real.substring(root.length()) : real;
    }

    private void emit(FileEvent event) {
        if (!closed) {
            listener.accept(event);
        }
    }

    @Override
    public void close() {
        closed = true;
        if (poller != null) {
            poller.cancel(false);
        }
        if (inotify != null) {
            try {
                inotify.kill();
            } catch (RuntimeException e) {
                LOG.fine("stopping inotifywait failed: " + e);
            }
        }
    }
}
