package dev.agentbox.bench;

import java.util.Locale;
import java.util.Map;

/** Per-iteration times (ms): total and its three parts. */
final class TakeoverParts {
    final long[] total;
    final long[] lease;
    final long[] claim;
    final long[] firstChunk;
    final long[] killed;

    TakeoverParts(int n) {
        killed = new long[n];
        total = new long[n];
        lease = new long[n];
        claim = new long[n];
        firstChunk = new long[n];
    }

    void record(
            int i,
            String label,
            long t0,
            long tKilled,
            long tLease,
            long tClaim,
            long t1,
            Map<String, Long> causes) {
        if (tLease == 0 || tClaim == 0) {
            throw new IllegalStateException(
                    "the probe saw no " + (tLease == 0 ? "lease taken by B" : "epoch 2"));
        }
        killed[i] = (tKilled - t0) / 1_000_000;
        total[i] = (t1 - t0) / 1_000_000;
        lease[i] = (tLease - t0) / 1_000_000;
        claim[i] = (tClaim - tLease) / 1_000_000;
        firstChunk[i] = (t1 - tClaim) / 1_000_000;
        System.err.printf(
                Locale.ROOT,
                "iteration %d, %s: total %d ms (kill → lease at B %d, lease → claim %d, claim →"
                        + " first new chunk %d; A's processes gone at %d); takeovers at B: %s%n",
                i + 1,
                label,
                total[i],
                lease[i],
                claim[i],
                firstChunk[i],
                killed[i],
                causes);
    }

    void print(String what, String liveness, Map<String, Long> causes) {
        System.out.printf(
                Locale.ROOT,
                "| %s, %s path, %d runs | median %d ms | max %d ms |%n"
                        + "| part: kill → driver lease held by B | median %d ms | max %d ms |%n"
                        + "| part: lease → claim (epoch 2) | median %d ms | max %d ms |%n"
                        + "| part: claim → first new chunk (replay, append) | median %d ms | max %d ms |%n"
                        + "| (bench) kill → A's processes gone | median %d ms | max %d ms |%n"
                        + "takeovers counted by B, by cause: %s%n",
                what,
                liveness,
                total.length,
                TakeoverBench.median(total),
                TakeoverBench.max(total),
                TakeoverBench.median(lease),
                TakeoverBench.max(lease),
                TakeoverBench.median(claim),
                TakeoverBench.max(claim),
                TakeoverBench.median(firstChunk),
                TakeoverBench.max(firstChunk),
                TakeoverBench.median(killed),
                TakeoverBench.max(killed),
                causes);
    }
}
