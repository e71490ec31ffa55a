package dev.agentbox.sandbox.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.testing.Slow;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The plain manifests of {@code deploy/kubernetes/}, checked offline: every document parses into
 * fabric8's typed model with no field the model does not know (a misspelt field would be silently
 * ignored by the API server's older versions, or refused by a strict one), and the Role grants
 * exactly the calls the provider makes, as recorded by the mock API server.
 */
// The mock API server takes seconds to warm up: slow tier (mvn verify), not mvn test.
@Slow
@EnableKubernetesMockClient(crud = true)
class KubernetesManifestsTest {

    private static final Path DIR = Path.of("deploy/kubernetes");
    static final Logger QUIET = MockServerLogs.quiet();

    private static final String KUBELET = "fake-kubelet";

    static KubernetesClient client;
    static KubernetesMockServer server;

    private static List<HasMetadata> objects;

    @BeforeAll
    static void parseEveryManifest() throws IOException {
        KubernetesSerialization serialization = new KubernetesSerialization();
        objects = new ArrayList<>();
        try (Stream<Path> files = Files.list(DIR)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                for (String doc : Files.readString(f).split("(?m)^---\\s*$")) {
                    if (doc.lines().allMatch(l -> l.isBlank() || l.strip().startsWith("#"))) {
                        continue;
                    }
                    HasMetadata o = serialization.unmarshal(doc);
                    assertThat(unknownFields(o))
                            .as(f + ": fields the model does not know")
                            .isEmpty();
                    objects.add(o);
                }
            }
        }
    }

    private static <T> T one(Class<T> type, String name) {
        return objects.stream()
                .filter(type::isInstance)
                .filter(o -> o.getMetadata().getName().equals(name))
                .map(type::cast)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name));
    }

    @Test
    void everyManifestIsATypedObjectWithOnlyKnownFields() {
        assertThat(objects)
                .extracting(o -> o.getKind() + "/" + o.getMetadata().getName())
                .contains(
                        "Namespace/agentbox",
                        "Namespace/agentbox-sandboxes",
                        "ServiceAccount/agentbox",
                        "Role/agentbox-sandboxes",
                        "RoleBinding/agentbox-sandboxes",
                        "Deployment/agentbox",
                        "Service/agentbox",
                        "Secret/agentbox-postgres",
                        "Deployment/agentbox-egress",
                        "Service/agentbox-egress",
                        "NetworkPolicy/agentbox-egress",
                        "Secret/agentbox-egress-channel");
        assertThat(one(Namespace.class, "agentbox")).isNotNull();
        assertThat(one(ServiceAccount.class, "agentbox")).isNotNull();
    }

    @Test
    void aMisspeltFieldIsCaught() {
        HasMetadata bad =
                new KubernetesSerialization()
                        .unmarshal(
                                "apiVersion: v1\nkind: Service\nmetadata:\n  name: x\nspec:\n  selectr: {}\n");
        assertThat(unknownFields(bad)).containsExactly("Service.spec.selectr");
    }

    @Test
    void theDeploymentRunsSeveralReplicasProbedOnHealthWithDatabaseCredentialsFromASecret() {
        Deployment d = one(Deployment.class, "agentbox");
        assertThat(d.getSpec().getReplicas()).isGreaterThan(1);
        assertThat(d.getSpec().getTemplate().getSpec().getServiceAccountName())
                .isEqualTo("agentbox");
        Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/health/ready");
        assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/health/live");
        Map<String, String> fromSecrets = new java.util.TreeMap<>();
        c.getEnv().stream()
                .filter(e -> e.getValueFrom() != null)
                .forEach(
                        e ->
                                fromSecrets.put(
                                        e.getName(), e.getValueFrom().getSecretKeyRef().getName()));
        assertThat(fromSecrets)
                .containsEntry("AGENTBOX_DB_URL", "agentbox-postgres")
                .containsEntry("AGENTBOX_DB_USER", "agentbox-postgres")
                .containsEntry("AGENTBOX_DB_PASSWORD", "agentbox-postgres");
        assertThat(c.getEnv())
                .noneMatch(e -> e.getName().startsWith("AGENTBOX_DB_") && e.getValue() != null);
        // the replicas carry the labels the sandboxes' NetworkPolicies admit
        assertThat(d.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(KubernetesSettings.defaults().network().replicaSelector());
        assertThat(one(Service.class, "agentbox").getSpec().getSelector())
                .isEqualTo(d.getSpec().getSelector().getMatchLabels());
        assertThat(one(Secret.class, "agentbox-postgres").getStringData())
                .containsKeys("url", "user", "password");
    }

    /** EG-11: what the provider looks for is what the gateway's manifest makes. */
    @Test
    void theEgressGatewayIsWhereAndWhatTheProviderLooksFor() {
        KubernetesSettings settings = KubernetesSettings.defaults();
        KubernetesSettings.Network n = settings.network();
        Deployment d = one(Deployment.class, "agentbox-egress");
        assertThat(d.getMetadata().getNamespace()).isEqualTo(settings.gatewayNamespace());
        assertThat(d.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(n.gatewaySelector());
        assertThat(d.getSpec().getTemplate().getSpec().getShareProcessNamespace()).isTrue();
        assertThat(d.getSpec().getTemplate().getSpec().getAutomountServiceAccountToken()).isFalse();
        Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(String.join(" ", c.getCommand()))
                .contains(
                        "agentbox-sandboxd serve-tcp "
                                + n.helperPort()
                                + " "
                                + SandboxObjects.CHANNEL_KEY_FILE)
                .endsWith("exec /usr/local/bin/agentbox-egress");
        assertThat(c.getReadinessProbe().getTcpSocket().getPort().getIntVal())
                .isEqualTo(PodEgress.PROXY_PORT);
        var keyVolume =
                d.getSpec().getTemplate().getSpec().getVolumes().stream()
                        .filter(v -> v.getName().equals("channel-key"))
                        .findFirst()
                        .orElseThrow();
        assertThat(keyVolume.getSecret().getSecretName()).isEqualTo(n.gatewayKeySecret());
        assertThat(keyVolume.getSecret().getItems().get(0).getKey())
                .isEqualTo(GatewayPods.KEY_ITEM);
        assertThat(one(Secret.class, n.gatewayKeySecret()).getMetadata().getNamespace())
                .isEqualTo(settings.gatewayNamespace());
        Service svc = one(Service.class, n.gatewayService());
        assertThat(svc.getSpec().getSelector()).isEqualTo(n.gatewaySelector());
        assertThat(svc.getSpec().getPorts())
                .extracting(p -> p.getPort() + "/" + p.getProtocol())
                .containsExactlyInAnyOrder("3128/TCP", "53/UDP", "53/TCP");
        assertThat(n.gatewayPorts()).containsExactlyInAnyOrder(3128, 53);
    }

    @Test
    void theRoleIsBoundToTheReplicasAccountInTheSandboxNamespaceOnly() {
        Role role = one(Role.class, "agentbox-sandboxes");
        RoleBinding binding = one(RoleBinding.class, "agentbox-sandboxes");
        String sandboxes = KubernetesSettings.defaults().namespace();
        assertThat(role.getMetadata().getNamespace()).isEqualTo(sandboxes);
        assertThat(binding.getMetadata().getNamespace()).isEqualTo(sandboxes);
        assertThat(binding.getRoleRef().getName()).isEqualTo("agentbox-sandboxes");
        assertThat(binding.getSubjects())
                .singleElement()
                .satisfies(
                        s -> {
                            assertThat(s.getKind()).isEqualTo("ServiceAccount");
                            assertThat(s.getName()).isEqualTo("agentbox");
                            assertThat(s.getNamespace()).isEqualTo("agentbox");
                        });
        assertThat(role.getRules())
                .allSatisfy(r -> assertThat(r.getResourceNames()).isNullOrEmpty())
                .noneMatch(r -> r.getVerbs().contains("*") || r.getResources().contains("*"));
    }

    @Test
    void theRoleGrantsExactlyTheCallsTheProviderMakes() throws InterruptedException {
        // every kind of call the provider makes: a create with secrets, resume, the channel's
        // endpoint (pod IP and key), list, destroy, the availability check, and a create that is
        // never ready and is cleaned up
        String ns = KubernetesSettings.defaults().namespace();
        try (KubernetesClient kubeletClient =
                        server.createClient(
                                b -> b.editOrNewConfig().withUserAgent(KUBELET).endConfig());
                FakeKubelet kubelet = new FakeKubelet(kubeletClient, ns)) {
            // The readiness wait lists, then watches: a status reported before its list (50 ms
            // after the create, on a loaded machine) ends the wait without the watch, and the
            // test would miss a call the provider makes. Two seconds leaves it time to list.
            kubelet.reportDelayMs = 2000;
            KubernetesSandboxProvider provider =
                    new KubernetesSandboxProvider(
                            KubernetesSettings.defaults().withReadyTimeout(Duration.ofSeconds(10)),
                            client);
            provider.create(
                    SandboxCreateInput.defaults().withRequestedId("rbac").withKey("k", "t"),
                    Map.of("K", "v"));
            provider.resume("agentbox-rbac");
            assertThat(provider.channel("agentbox-rbac")).isPresent();
            provider.listManaged();
            provider.destroy("agentbox-rbac");
            provider.available();
            kubelet.behaviour = p -> FakeKubelet.imagePullBackOff();
            assertThatThrownBy(
                    () -> provider.create(SandboxCreateInput.defaults().withRequestedId("rbac-2")));
            // the egress gateway's Service, pods and key Secret, as the gateway's manifest makes
            // them (by the fake kubelet's client: not the provider's calls)
            kubeletClient
                    .services()
                    .inNamespace(ns)
                    .resource(GatewayPodFixture.service("127.0.0.1"))
                    .create();
            KubernetesSandboxProvider gateway =
                    new KubernetesSandboxProvider(
                            KubernetesSettings.defaults()
                                    .withNetwork(
                                            KubernetesSettings.Network.defaults().withEgress(true)),
                            client);
            assertThat(gateway.egress().address()).isEqualTo("127.0.0.1");
            gateway.egress().resync();
        }

        Set<String> made = new TreeSet<>();
        RecordedRequest r;
        while ((r = server.takeRequest(200, TimeUnit.MILLISECONDS)) != null) {
            if (!KUBELET.equals(r.getHeader("User-Agent"))) {
                made.add(permission(r.getMethod(), r.getPath()));
            }
        }
        Set<String> granted = new TreeSet<>();
        for (PolicyRule rule : one(Role.class, "agentbox-sandboxes").getRules()) {
            for (String group : rule.getApiGroups()) {
                for (String resource : rule.getResources()) {
                    for (String verb : rule.getVerbs()) {
                        granted.add(group + "/" + resource + " " + verb);
                    }
                }
            }
        }
        assertThat(made).isEqualTo(granted);
    }

    /** {@code group/resource verb} of one API request, as RBAC names it. */
    static String permission(String method, String pathAndQuery) {
        String path = pathAndQuery.split("\\?", 2)[0];
        String query = pathAndQuery.contains("?") ? pathAndQuery.split("\\?", 2)[1] : "";
        String[] p = path.replaceFirst("^/", "").split("/");
        // api/v1/namespaces/NS/RES[/NAME[/SUB]] or
        // apis/GROUP/VERSION/namespaces/NS/RES[/NAME[/SUB]]
        int at = p[0].equals("api") ? 2 : 3;
        String group = p[0].equals("api") ? "" : p[1];
        String resource = p[at + 2];
        boolean named = p.length > at + 3;
        if (p.length > at + 4) {
            resource += "/" + p[at + 4];
        }
        String verb =
                switch (method) {
                    case "POST" -> "create";
                    case "PUT" -> "update";
                    case "PATCH" -> "patch";
                    case "DELETE" -> named ? "delete" : "deletecollection";
                    default -> named ? "get" : query.contains("watch=true") ? "watch" : "list";
                };
        return group + "/" + resource + " " + verb;
    }

    /** The paths of fields the typed model did not know (kept in additionalProperties). */
    static List<String> unknownFields(Object root) {
        List<String> found = new ArrayList<>();
        walk(root, root.getClass().getSimpleName(), found, new IdentityHashMap<>());
        return found;
    }

    private static void walk(
            Object o, String path, List<String> found, IdentityHashMap<Object, Boolean> seen) {
        if (o == null || seen.put(o, true) != null) {
            return;
        }
        if (o instanceof Collection<?> c) {
            int i = 0;
            for (Object e : c) {
                walk(e, path + "[" + i++ + "]", found, seen);
            }
            return;
        }
        if (o instanceof Map<?, ?> m) {
            m.forEach((k, v) -> walk(v, path + "." + k, found, seen));
            return;
        }
        if (!o.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
            return;
        }
        for (Method getter : o.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || getter.getDeclaringClass() == Object.class) {
                continue;
            }
            String name = getter.getName();
            try {
                if (name.equals("getAdditionalProperties")) {
                    Map<?, ?> extra = (Map<?, ?>) getter.invoke(o);
                    if (extra != null) {
                        extra.keySet().forEach(k -> found.add(path + "." + k));
                    }
                } else if (name.startsWith("get") && !name.equals("getClass")) {
                    String field = Character.toLowerCase(name.charAt(3)) + name.substring(4);
                    walk(getter.invoke(o), path + "." + field, found, seen);
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
