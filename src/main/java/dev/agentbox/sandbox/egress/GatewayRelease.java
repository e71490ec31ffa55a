package dev.agentbox.sandbox.egress;

import java.util.List;

/**
 * Takes a destroyed sandbox's files out of its gateway, one shell script run in the gateway by
 * every provider (a Docker exec, a command through a gateway pod's helper) with {@code $1} the
 * address's stem ({@link GatewayRules#stem}) and {@code $2} the rules header naming the sandbox.
 *
 * <p>Invariants, under the gateway's reload lock, so that no apply's rename interleaves:
 *
 * <ul>
 *   <li>Nothing is touched unless the live rules still name the sandbox: an address is reused, and
 *       a newer sandbox's files are never removed by its predecessor's release.
 *   <li>Its refusal file and brokered secrets go whenever the rules name it. The secret values
 *       leave the gateway's tmpfs with the sandbox, not when the address is next taken.
 *   <li>While an apply is under way at that address (a {@code .rules.next}, written before its
 *       {@code .dns}), the rules and the DNS names stay: the {@code .dns} is already the newer
 *       sandbox's, and its apply's rename replaces the rules. Removing them there raced that apply
 *       and left the newer sandbox without DNS for its allowed names.
 * </ul>
 *
 * A release that cannot run (a gateway gone) is best effort: stale rules name an address nobody
 * holds until the next sandbox there writes its own before it runs anything.
 */
public final class GatewayRelease {

    public static final String SCRIPT =
            "d=/etc/agentbox-egress/sandboxes r=/run/agentbox-egress\n"
                    + "exec 9>/run/agentbox-egress.lock && flock 9 || exit 1\n"
                    + "head -n 1 \"$d/$1.rules\" 2>/dev/null | grep -qxF \"$2\" || exit 0\n"
                    + "rm -f \"$r/denied/$1\" \"$r/secrets/$1\" || exit 1\n"
                    + "[ -e \"$d/$1.rules.next\" ] && exit 0\n"
                    + "rm -f \"$d/$1.rules\" \"$d/$1.dns\" || exit 1\n"
                    + "flock -u 9; exec 9>&-\n"
                    + "exec agentbox-egress reload\n";

    private GatewayRelease() {}

    /** The script's arguments for {@code sandbox} (its name) at {@code address}. */
    public static List<String> args(String sandbox, String address) {
        return List.of(GatewayRules.stem(address), GatewayRules.HEADER + sandbox);
    }
}
