package dev.agentbox.tool.bridge;

import dev.agentbox.sandbox.spi.FileFollow;
import dev.agentbox.sandbox.spi.SandboxFs;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Follows a file of the mailbox from its start and hands each complete line to a consumer, on one
 * thread of its own, in order. A line longer than the bound is skipped as it streams by (never
 * held), and reported as {@code null} so the consumer can count it. A follow that ends (channel
 * restart, file not there yet) is reopened from the last offset after a pause; where the sandbox
 * cannot follow at all the file is re-read every 250 ms instead.
 */
public final class LineFollow implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(LineFollow.class.getName());
    private static final Duration PAUSE = Duration.ofMillis(250);

    private final SandboxFs fs;
    private final String path;
    private final int maxLine;
    private final Consumer<String> lines;
    private final Thread thread;
    private volatile boolean closed;
    private volatile FileFollow current;

    private long offset;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private boolean skipping;

    public LineFollow(
            SandboxFs fs, String path, int maxLine, Consumer<String> lines, ThreadFactory threads) {
        this.fs = fs;
        this.path = path;
        this.maxLine = maxLine;
        this.lines = lines;
        this.thread = threads.newThread(this::run);
    }

    public LineFollow start() {
        thread.start();
        return this;
    }

    private void run() {
        try {
            while (!closed) {
                Optional<FileFollow> f = fs.follow(path, offset);
                if (f.isEmpty()) {
                    poll();
                    continue;
                }
                current = f.get();
                try (FileFollow follow = f.get()) {
                    while (!closed) {
                        byte[] b = follow.next(Duration.ofSeconds(1));
                        if (b == null) {
                            continue;
                        }
                        if (b.length == 0) {
                            break; // ended: reopen after a pause
                        }
                        feed(b, 0, b.length);
                    }
                }
                if (!closed) {
                    Thread.sleep(PAUSE.toMillis());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            if (!closed) {
                LOG.log(Level.WARNING, "following " + path + " failed", e);
            }
        }
    }

    private void poll() throws InterruptedException {
        try {
            byte[] all = fs.readBytes(path);
            if (all.length > offset) {
                feed(all, (int) offset, all.length - (int) offset);
            }
        } catch (RuntimeException e) {
            // not there yet, or unreadable for now: the next poll tries again
        }
        Thread.sleep(PAUSE.toMillis());
    }

    private void feed(byte[] b, int from, int len) {
        for (int i = from; i < from + len; i++) {
            byte c = b[i];
            offset++;
            if (c == '\n') {
                if (skipping) {
                    lines.accept(null);
                } else {
                    lines.accept(line.toString(StandardCharsets.UTF_8));
                }
                line.reset();
                skipping = false;
            } else if (!skipping) {
                if (line.size() >= maxLine) {
                    skipping = true;
                    line.reset();
                } else {
                    line.write(c);
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        FileFollow f = current;
        if (f != null) {
            f.close();
        }
        thread.interrupt();
    }
}
