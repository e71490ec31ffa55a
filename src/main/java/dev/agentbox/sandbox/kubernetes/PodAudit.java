package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.sandbox.egress.DeniedFile;
import dev.agentbox.sandbox.egress.GatewayRules;
import dev.agentbox.sandbox.spi.EgressAudit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

/**
 * The refusals of one egress pod, gathered from every ready gateway pod's refusals file for the
 * pod's IP ({@code agentbox-egress denied}): the pod's requests may go through any of them.
 *
 * <p>Each gateway pod has an offset of its own, so this audit keeps them itself, per gateway
 * container ({@link GatewayPods.GatewayPod#generation}): its positions count the refusals it has
 * handed out and mean nothing to another audit object (a run's driver keeps the one it started
 * with). A gateway pod first seen after {@link #end} is read from its start: it began after the
 * reader did, so all its refusals are new.
 *
 * <p>A gateway pod that does not answer — one going away in a rollout, or named by a listing a
 * moment old ({@link GatewayPods#recentlyReady}) — is skipped and never ends the reading: the
 * others are read as usual, and it is read on from where it stood once it answers again. It is
 * tried again only {@link #RETRY} later: a read runs on the run driver's thread, and a pod that
 * keeps failing costs each try up to the channel's handshake bound, which must not be paid at every
 * poll. One that did not answer at {@link #end} has no known start: the first read that reaches it
 * only finds where it stands, so refusals from before the reader started are never reported.
 */
final class PodAudit implements EgressAudit {

    private static final Logger LOG = Logger.getLogger(PodAudit.class.getName());
    private static final long END = Long.MAX_VALUE / 2;

    /** How long a gateway container that did not answer is left alone before it is tried again. */
    static final Duration RETRY = Duration.ofSeconds(30);

    private final GatewayPods pods;
    private final String stem;
    private final Map<String, Long> offsets = new HashMap<>();
    private final Set<String> unplaced = new HashSet<>();

    /**
     * Gateway containers that did not answer, and when ({@link GatewayPods#nanos}) to try again.
     */
    private final Map<String, Long> retryAt = new HashMap<>();

    PodAudit(GatewayPods pods, String podIp) {
        this.pods = pods;
        this.stem = GatewayRules.stem(podIp);
    }

    @Override
    public synchronized long end() {
        for (GatewayPods.GatewayPod g : pods.ready()) {
            try {
                offsets.put(g.generation(), read(g, END).next());
            } catch (RuntimeException e) {
                unplaced.add(g.generation());
                skipped(g, e);
            }
        }
        return 0;
    }

    @Override
    public synchronized Refusals since(long position) {
        List<Refusal> all = new ArrayList<>();
        for (GatewayPods.GatewayPod g : pods.recentlyReady()) {
            String gen = g.generation();
            Long retry = retryAt.get(gen);
            if (retry != null && pods.nanos() - retry < 0) {
                continue;
            }
            try {
                if (unplaced.contains(gen)) {
                    offsets.put(gen, read(g, END).next());
                    unplaced.remove(gen);
                } else {
                    Refusals r = read(g, offsets.getOrDefault(gen, 0L));
                    offsets.put(gen, r.next());
                    all.addAll(r.refusals());
                }
                retryAt.remove(gen);
            } catch (RuntimeException e) {
                skipped(g, e);
            }
        }
        return new Refusals(all, position + all.size());
    }

    /**
     * Leaves gateway container {@code g} alone for {@link #RETRY} and lists the pods afresh at the
     * next read; said once until it answers again.
     */
    private void skipped(GatewayPods.GatewayPod g, RuntimeException e) {
        pods.forgetListing();
        if (retryAt.put(g.generation(), pods.nanos() + RETRY.toNanos()) == null) {
            LOG.info(
                    "egress refusals of "
                            + stem
                            + ": gateway pod "
                            + g.name()
                            + " skipped, tried again every "
                            + RETRY.toSeconds()
                            + " s until it answers: "
                            + e.getMessage());
        }
    }

    private Refusals read(GatewayPods.GatewayPod g, long offset) {
        return DeniedFile.parse(
                pods.output(
                        g,
                        "exec agentbox-egress denied \"$1\" \"$2\"",
                        stem,
                        Long.toString(offset)),
                offset);
    }
}
