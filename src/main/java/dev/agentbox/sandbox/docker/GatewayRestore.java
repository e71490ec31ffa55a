package dev.agentbox.sandbox.docker;

import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.ContainerNetwork;
import dev.agentbox.sandbox.egress.EgressLabel;
import dev.agentbox.sandbox.egress.GatewayRules;
import dev.agentbox.sandbox.spi.EgressRule;
import dev.agentbox.sandbox.spi.SandboxLabels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Gives a tenant's gateway back the rules of the egress sandboxes running on its network, from
 * their labels ({@link EgressLabel}): a gateway that an operator or a crash removed is made again
 * by the next ensure knowing nothing, and its running sandboxes must not stay cut off until they
 * are stopped and resumed.
 *
 * <p>Invariants: it only adds rules a gateway lacks. A sandbox whose address already has a rules
 * file in the gateway is left alone — whatever sandbox that file names — so a live gateway keeps
 * its files, refusal positions and brokered secrets, and a newer sandbox that took the address (and
 * wrote its own rules) is never overwritten; the check and the rename happen in one exec under the
 * gateway's reload lock. Each restore copies its files under names of its own, so two restores of
 * one new gateway at once (two servers, or two ensures) never take each other's copies. Brokered
 * secrets are not restored here: their values are held by no label; the drivers of the sandboxes'
 * runs give them back ({@code EgressGateways#restoreBrokered}).
 */
final class GatewayRestore {

    private static final String SANDBOXES = "/etc/agentbox-egress/sandboxes/";

    /**
     * The restored copies' suffix, one per restore: two servers (or two ensures of one server) may
     * restore one new gateway at once, and must not move or remove each other's copies.
     */
    private static final String SUFFIX = ".restore-";

    private static final Logger LOG = Logger.getLogger(GatewayRestore.class.getName());

    /**
     * Under the gateway's reload lock, for each stem: if the gateway has rules for that address, or
     * an apply is under way ({@code .rules.next}, written before its {@code .dns}), the restored
     * copies are dropped; else they become the live files and the address starts with no refusals.
     * Then, outside the lock, one reload re-reads the DNS names.
     */
    private static final String SCRIPT =
            "x=\"$1\"; shift\n"
                    + "exec 9>/run/agentbox-egress.lock && flock 9 && cd "
                    + SANDBOXES
                    + " || exit 1\n"
                    + "for s in \"$@\"; do\n"
                    + "  if [ -e \"$s.rules\" ] || [ -e \"$s.rules.next\" ]; then\n"
                    + "    rm -f \"$s.rules$x\" \"$s.dns$x\"\n"
                    + "  else\n"
                    + "    mv \"$s.dns$x\" \"$s.dns\" && mv \"$s.rules$x\" \"$s.rules\""
                    + " && : > \"/run/agentbox-egress/denied/$s\""
                    + " && chown proxy:proxy \"/run/agentbox-egress/denied/$s\" || exit 1\n"
                    + "  fi\n"
                    + "done\n"
                    + "flock -u 9; exec 9>&-\n"
                    + "exec agentbox-egress reload\n";

    private GatewayRestore() {}

    /** One running egress sandbox on the network: its name, address and rules label. */
    record Member(String name, String address, String rules) {}

    /**
     * The egress sandboxes among {@code running} with an address on {@code network} and a rules
     * label; containers without one (the gateway itself, other sandboxes) are skipped.
     */
    static List<Member> members(List<Container> running, String network) {
        List<Member> out = new ArrayList<>();
        for (Container c : running) {
            Map<String, String> labels = c.getLabels() == null ? Map.of() : c.getLabels();
            String rules = labels.get(DockerSandboxProvider.EGRESS);
            if (!"egress".equals(labels.get(DockerSandboxProvider.NETWORK))
                    || rules == null
                    || c.getNames() == null
                    || c.getNames().length == 0
                    || c.getNetworkSettings() == null
                    || c.getNetworkSettings().getNetworks() == null) {
                continue;
            }
            ContainerNetwork n = c.getNetworkSettings().getNetworks().get(network);
            if (n != null && n.getIpAddress() != null && !n.getIpAddress().isEmpty()) {
                out.add(
                        new Member(
                                c.getNames()[0].replaceFirst("^/", ""), n.getIpAddress(), rules));
            }
        }
        return out;
    }

    /**
     * The files to copy into the gateway (next to, never over, the live ones) and the stems to pass
     * to the restore script. A member whose label cannot be read is skipped with a warning: the
     * others still get their rules.
     */
    static Map<String, byte[]> files(
            List<Member> members, List<EgressRule> alwaysAllow, List<String> stems, String id) {
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (Member m : members) {
            try {
                GatewayRules.Files f =
                        GatewayRules.render(m.name(), EgressLabel.parse(m.rules()), alwaysAllow);
                String stem = GatewayRules.stem(m.address());
                out.put(SANDBOXES + stem + ".rules" + SUFFIX + id, utf8(f.rules()));
                out.put(SANDBOXES + stem + ".dns" + SUFFIX + id, utf8(f.dns()));
                stems.add(stem);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "egress sandbox " + m.name() + ": rules not restored", e);
            }
        }
        return out;
    }

    /** A restore's own suffix id: safe as a file name. */
    static String newId() {
        return java.util.UUID.randomUUID().toString();
    }

    /**
     * The restore script's command line for {@code stems}, with the copies of restore {@code id}.
     */
    static List<String> command(List<String> stems, String id) {
        List<String> cmd = new ArrayList<>(List.of("sh", "-c", SCRIPT, "restore", SUFFIX + id));
        cmd.addAll(stems);
        return cmd;
    }

    /** The label filter of the containers a restore looks at. */
    static Map<String, String> managed() {
        return Map.of(SandboxLabels.MANAGED, "true");
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
