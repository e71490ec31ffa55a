package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.sandbox.egress.DeniedFile;
import dev.agentbox.sandbox.egress.GatewayRules;
import dev.agentbox.sandbox.spi.EgressAudit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The refusals of one egress pod, gathered from every ready gateway pod's refusals file for the
 * pod's IP ({@code agentbox-egress denied}): the pod's requests may go through any of them.
 *
 * <p>Each gateway pod has an offset of its own, so this audit keeps them itself, per gateway
 * container ({@link GatewayPods.GatewayPod#generation}): its positions count the refusals it has
 * handed out and mean nothing to another audit object (a run's driver keeps the one it started
 * with). A gateway pod first seen after {@link #end} is read from its start: it began after the
 * reader did, so all its refusals are new.
 */
final class PodAudit implements EgressAudit {

    private final GatewayPods pods;
    private final String stem;
    private final Map<String, Long> offsets = new ConcurrentHashMap<>();

    PodAudit(GatewayPods pods, String podIp) {
        this.pods = pods;
        this.stem = GatewayRules.stem(podIp);
    }

    @Override
    public synchronized long end() {
        for (GatewayPods.GatewayPod g : pods.ready()) {
            offsets.put(g.generation(), read(g, Long.MAX_VALUE / 2).next());
        }
        return 0;
    }

    @Override
    public synchronized Refusals since(long position) {
        List<Refusal> all = new ArrayList<>();
        for (GatewayPods.GatewayPod g : pods.ready()) {
            Refusals r = read(g, offsets.getOrDefault(g.generation(), 0L));
            offsets.put(g.generation(), r.next());
            all.addAll(r.refusals());
        }
        return new Refusals(all, position + all.size());
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
