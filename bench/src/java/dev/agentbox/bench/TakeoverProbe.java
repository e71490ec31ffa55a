package dev.agentbox.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/**
 * Polls the run's driver lease row and claim row every 10 ms on its own connection: the first
 * moment B holds the lease and the first moment the epoch is 2 or more.
 */
final class TakeoverProbe implements AutoCloseable {
    private final Thread thread;
    private volatile long leaseTaken;
    private volatile long claimed;
    private volatile long seqAtClaim = -1;

    private TakeoverProbe(String runId) {
        thread =
                new Thread(
                        () -> {
                            try (Connection db = TakeoverBench.connect();
                                    PreparedStatement s =
                                            db.prepareStatement(
                                                    "SELECT (SELECT l.holder FROM ab_lease l WHERE l.name = 'run-driver:' || r.run_pk),"
                                                            + " (SELECT c.version FROM ab_run_claim c WHERE c.run_pk = r.run_pk),"
                                                            + " (SELECT COALESCE(MAX(e.chunk_seq), 0) FROM ab_run_event e WHERE e.run_pk = r.run_pk)"
                                                            + " FROM ab_run r WHERE r.run_id = ?")) {
                                s.setString(1, runId);
                                while (!Thread.currentThread().isInterrupted()
                                        && (leaseTaken == 0 || claimed == 0)) {
                                    try (ResultSet rs = s.executeQuery()) {
                                        long now = System.nanoTime();
                                        if (rs.next()) {
                                            String holder = rs.getString(1);
                                            if (leaseTaken == 0
                                                    && holder != null
                                                    && holder.startsWith("B/")) {
                                                leaseTaken = now;
                                            }
                                            if (claimed == 0 && rs.getLong(2) >= 2) {
                                                seqAtClaim = rs.getLong(3);
                                                claimed = now;
                                                if (leaseTaken == 0) {
                                                    leaseTaken = now;
                                                }
                                            }
                                        }
                                    }
                                    Thread.sleep(10);
                                }
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            } catch (Exception e) {
                                System.err.println("probe failed: " + e);
                            }
                        },
                        "takeover-probe");
    }

    static TakeoverProbe start(String runId) {
        TakeoverProbe p = new TakeoverProbe(runId);
        p.thread.start();
        return p;
    }

    /** The last sequence number stored when the epoch was first seen at 2; -1 before. */
    long seqAtClaim() {
        return seqAtClaim;
    }

    long leaseTaken() throws InterruptedException {
        thread.join(5_000);
        return leaseTaken;
    }

    long claimed() throws InterruptedException {
        thread.join(5_000);
        return claimed;
    }

    @Override
    public void close() throws InterruptedException {
        thread.interrupt();
        thread.join(5_000);
    }
}
