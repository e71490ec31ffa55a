package dev.agentbox.sandbox.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How old a listing of the gateway's pods the refusal readers get (EG-16), against the mock API
 * server and a settable clock: writers always list afresh, readers reuse a listing until it is
 * {@link GatewayPods#RECENT} old or was forgotten after a pod did not answer.
 */
@EnableKubernetesMockClient(crud = true)
class GatewayPodsTest {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    static KubernetesClient client;
    static final Logger QUIET = MockServerLogs.quiet();

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private String ns;
    private GatewayPods pods;

    @BeforeEach
    void start() {
        ns = "gateway-pods-" + NAMESPACES.incrementAndGet();
        pods =
                new GatewayPods(
                        new KubernetesSandboxProvider(
                                KubernetesSettings.defaults().withNamespace(ns), client),
                        now::get);
    }

    private void readyGatewayPod(String name, String ip) {
        client.pods().inNamespace(ns).resource(GatewayPodFixture.readyPod(name, ip, 0)).create();
    }

    private void advance(long millis) {
        now.addAndGet(millis * 1_000_000L);
    }

    @Test
    void readersGetTheLastListingUntilItIsTwoSecondsOld() {
        readyGatewayPod("agentbox-egress-a", "10.1.0.1");
        assertThat(pods.recentlyReady())
                .extracting(GatewayPods.GatewayPod::name)
                .containsExactly("agentbox-egress-a");
        readyGatewayPod("agentbox-egress-b", "10.1.0.2");

        advance(GatewayPods.RECENT.toMillis() - 1);
        assertThat(pods.recentlyReady())
                .extracting(GatewayPods.GatewayPod::name)
                .containsExactly("agentbox-egress-a");

        advance(1);
        assertThat(pods.recentlyReady())
                .extracting(GatewayPods.GatewayPod::name)
                .containsExactly("agentbox-egress-a", "agentbox-egress-b");
    }

    @Test
    void writersListAfreshAndTheirListingServesTheReaders() {
        readyGatewayPod("agentbox-egress-a", "10.1.0.1");
        assertThat(pods.recentlyReady()).hasSize(1);
        readyGatewayPod("agentbox-egress-b", "10.1.0.2");

        assertThat(pods.ready()).hasSize(2);
        client.pods().inNamespace(ns).withName("agentbox-egress-b").delete();

        assertThat(pods.recentlyReady()).hasSize(2);
    }

    @Test
    void aForgottenListingIsTakenAgainAtTheNextRead() {
        readyGatewayPod("agentbox-egress-a", "10.1.0.1");
        readyGatewayPod("agentbox-egress-b", "10.1.0.2");
        assertThat(pods.recentlyReady()).hasSize(2);
        client.pods().inNamespace(ns).withName("agentbox-egress-b").delete();

        pods.forgetListing();

        assertThat(pods.recentlyReady())
                .extracting(GatewayPods.GatewayPod::name)
                .containsExactly("agentbox-egress-a");
    }
}
