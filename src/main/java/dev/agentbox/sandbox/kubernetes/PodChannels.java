package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.platform.Lazy;
import dev.agentbox.sandbox.channel.ChannelKey;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.channel.TcpEndpoint;
import io.fabric8.kubernetes.api.model.Pod;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The sandbox channels of pods: to the helper at the pod's IP ({@code status.podIP}) and the helper
 * port, authenticated with the channel key read from the sandbox's Secret.
 *
 * <ul>
 *   <li>Any replica can reach any sandbox: the key comes from the Secret through the API ({@code
 *       get secrets}), not from the memory of the replica that made it.
 *   <li>A channel is kept per pod name and used without asking the API again while it works: a
 *       pod's IP and key do not change while it lives. Once it failed (it backs off), the pod is
 *       read again: a pod made again under the same name (a new UID, a new key, another IP) gets a
 *       new channel, never the old one's key or address.
 *   <li>Bounded: past {@link #MAX_KNOWN} pods the map is cleared; an entry costs one API read of
 *       the pod and one of its Secret to make again.
 * </ul>
 */
final class PodChannels implements AutoCloseable {

    static final int MAX_KNOWN = 4096;

    private record Known(String uid, String ip, SandboxChannel channel) {}

    private final KubernetesSandboxProvider provider;
    private final Map<String, Known> channels = new ConcurrentHashMap<>();
    private final Lazy<ScheduledThreadPoolExecutor> watchdog =
            Lazy.of(
                    () -> {
                        ScheduledThreadPoolExecutor w =
                                new ScheduledThreadPoolExecutor(
                                        1, new DaemonThreads("agentbox-pod-channel-watchdog"));
                        w.setRemoveOnCancelPolicy(true);
                        return w;
                    });
    private final Lazy<ExecutorService> readers =
            Lazy.of(() -> Executors.newCachedThreadPool(new DaemonThreads("agentbox-pod-channel")));

    PodChannels(KubernetesSandboxProvider provider) {
        this.provider = provider;
    }

    /**
     * The channel of managed pod {@code podName}; empty while it has no IP, or when its Secret
     * holds no key.
     */
    Optional<SandboxChannel> of(String podName) {
        Known known = channels.get(podName);
        if (known != null && known.channel().usable()) {
            return Optional.of(known.channel());
        }
        Optional<Pod> pod = provider.managedPod(podName);
        if (pod.isEmpty() || pod.get().getStatus() == null) {
            return Optional.empty();
        }
        String uid = pod.get().getMetadata().getUid();
        String ip = pod.get().getStatus().getPodIP();
        if (ip == null || ip.isBlank()) {
            return Optional.empty();
        }
        if (known != null && known.uid().equals(uid) && known.ip().equals(ip)) {
            return Optional.of(known.channel()); // the same pod: its channel backs off a failure
        }
        Optional<ChannelKey> key = provider.secrets().readKey(podName);
        if (key.isEmpty()) {
            return Optional.empty();
        }
        SandboxChannel ch =
                new SandboxChannel(
                        podName,
                        new TcpEndpoint(
                                new InetSocketAddress(
                                        literal(ip), provider.settings().network().helperPort()),
                                key.get()),
                        watchdog.get(),
                        readers.get());
        if (channels.size() >= MAX_KNOWN) {
            channels.clear();
        }
        Known old = channels.put(podName, new Known(uid, ip, ch));
        if (old != null) {
            old.channel().dropSpare();
        }
        return Optional.of(ch);
    }

    /** Closes the connections of commands run over these channels at their deadlines. */
    ScheduledExecutorService watchdog() {
        return watchdog.get();
    }

    /** Where kills run, off the caller's thread. */
    Executor workers() {
        return readers.get();
    }

    /** Forgets the channel of {@code podName} (destroyed), closing its spare connection. */
    void forget(String podName) {
        Known k = channels.remove(podName);
        if (k != null) {
            k.channel().dropSpare();
        }
    }

    /** {@code status.podIP} is an address literal: parsed, never looked up in DNS. */
    static InetAddress literal(String ip) {
        if (!ip.matches("[0-9a-fA-F:.]+")) {
            throw new IllegalStateException("not an IP address: " + ip);
        }
        try {
            return InetAddress.getByName(ip); // a literal: no lookup
        } catch (UnknownHostException e) {
            throw new IllegalStateException("not an IP address: " + ip, e);
        }
    }

    @Override
    public void close() {
        channels.values().forEach(k -> k.channel().dropSpare());
        channels.clear();
        watchdog.ifMade().ifPresent(ScheduledThreadPoolExecutor::shutdownNow);
        readers.ifMade().ifPresent(ExecutorService::shutdownNow);
    }
}
