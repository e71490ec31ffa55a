package dev.agentbox.it;

import dev.agentbox.sandbox.docker.EgressGatewayNames;

/**
 * The "internet" of the egress integration tests: one {@link OutsideHost} serving HTTP on port 80
 * (BusyBox {@code httpd}) at the fixed address the IT server's {@code agentbox.egress.resolve} pins
 * {@link #ALLOWED}, {@link #DENIED} and {@link #OTHER} to (pom.xml, {@code it.egress.address}).
 * Nothing leaves this machine. Its index page says {@link #GREETING}.
 */
final class EgressWorld {

    static final String ALLOWED = "allowed.egress.test";
    static final String DENIED = "denied.egress.test";
    static final String OTHER = "other.egress.test";
    static final String GREETING = "hello-from-egress-world";

    /** The tenants of the IT server's tokens {@link Api#TENANT_A} and {@link Api#TENANT_B}. */
    static final String TENANT_A = "tenant-a";

    static final String TENANT_B = "tenant-b";

    private static volatile String installation;

    private EgressWorld() {}

    /**
     * The IT server's installation: its tenants' gateways and networks are named within it (another
     * lane's server on the same engine has its own).
     */
    static String installation() {
        if (installation == null) {
            Api api = Api.itServer();
            installation = Installations.of(api);
        }
        return installation;
    }

    /** The IT server's gateway container of {@code tenant}. */
    static String gateway(String tenant) {
        return EgressGatewayNames.gateway(installation(), tenant);
    }

    /** The IT server's internal egress network of {@code tenant}. */
    static String network(String tenant) {
        return EgressGatewayNames.network(installation(), tenant);
    }

    /** The address the IT server pins the test names to (the host's, a /30's second). */
    static String address() {
        return System.getProperty("agentbox.it.egress.address", "198.18.251.2");
    }

    /**
     * Starts the web host at {@link #address()}; {@code setup} (a shell command, may be empty) runs
     * in it before the server starts, with {@code /www} as the document root.
     */
    static OutsideHost start(String setup) {
        String a = address();
        int last = Integer.parseInt(a.substring(a.lastIndexOf('.') + 1));
        String network = a.substring(0, a.lastIndexOf('.') + 1) + (last - 2) + "/30";
        return OutsideHost.startAt(
                "agentbox/sandbox:busybox",
                "mkdir -p /www && echo "
                        + GREETING
                        + " > /www/index.html"
                        + (setup.isEmpty() ? "" : " && " + setup)
                        + " && exec httpd -f -p 80 -h /www",
                network,
                java.time.Duration.ofMinutes(10));
    }

    /**
     * Removes the egress gateways and internal networks of {@code tenants} that these tests caused
     * (the next egress ensure of a tenant makes them again). Their sandboxes must be gone first: a
     * network with a container on it stays.
     */
    static void removeGateways(String... tenants) {
        for (String tenant : tenants) {
            DockerCli.run("rm", "-f", gateway(tenant));
            DockerCli.run("network", "rm", network(tenant));
        }
    }

    /** The body of an ensure of an egress sandbox with these allow and deny entries. */
    static String egressBody(String definitionId, String allow, String deny) {
        return "{\"definitionId\":\""
                + definitionId
                + "\",\"policy\":{\"network\":\"egress\",\"egress\":{\"allow\":["
                + allow
                + "],\"deny\":["
                + deny
                + "]}}}";
    }

    /** The HTTP status of a GET of {@code url} from the sandbox, through its proxy variables. */
    static String status(Sandboxes sandboxes, String key, String url) {
        return sandboxes
                .stdout(key, "curl -s -o /dev/null -w '%{http_code}' --max-time 10 '" + url + "'")
                .trim();
    }
}
