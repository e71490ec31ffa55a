package dev.agentbox.tool.http;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Set;

/**
 * Which address a tool's url may reach. The host must be listed in {@code
 * agentbox.tools.http.allowed-hosts}; a name is resolved <em>once</em> here and the call connects
 * to that very address, so a DNS answer that changes between the check and the connect (rebinding)
 * cannot move the call to another address. An address that is not public (loopback, link-local such
 * as the cloud metadata address 169.254.169.254, site-local/private, unique-local, wildcard,
 * multicast) is refused unless the address itself is listed too.
 */
public final class HostPolicy {

    private final Set<String> allowed;

    public HostPolicy(Set<String> allowedLowerCase) {
        this.allowed = allowedLowerCase;
    }

    /**
     * The one address to connect to for {@code host}.
     *
     * @throws ToolCallFailure when the host is not allowed, does not resolve, or resolves only to
     *     addresses that are not public and not listed
     */
    public InetAddress admit(String host) throws ToolCallFailure {
        String h = strip(host.toLowerCase(Locale.ROOT));
        if (!allowed.contains(h)) {
            throw new ToolCallFailure(
                    "host "
                            + h
                            + " is not allowed for HTTP tools (agentbox.tools.http.allowed-hosts)");
        }
        InetAddress[] all;
        try {
            all = InetAddress.getAllByName(h);
        } catch (UnknownHostException e) {
            throw new ToolCallFailure("host " + h + " does not resolve");
        }
        for (InetAddress a : all) {
            if (isPublic(a) || allowed.contains(strip(a.getHostAddress()))) {
                return a;
            }
        }
        throw new ToolCallFailure(
                "host "
                        + h
                        + " resolves to a loopback, link-local or private address that is not"
                        + " listed in agentbox.tools.http.allowed-hosts");
    }

    private static String strip(String h) {
        String s = h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
        int zone = s.indexOf('%');
        return zone >= 0 ? s.substring(0, zone) : s;
    }

    static boolean isPublic(InetAddress a) {
        if (a.isLoopbackAddress()
                || a.isLinkLocalAddress()
                || a.isSiteLocalAddress()
                || a.isAnyLocalAddress()
                || a.isMulticastAddress()) {
            return false;
        }
        byte[] b = a.getAddress();
        if (a instanceof Inet6Address) {
            return (b[0] & 0xfe) != 0xfc; // fc00::/7 unique local
        }
        int first = b[0] & 0xff;
        int second = b[1] & 0xff;
        boolean sharedCgnat = first == 100 && second >= 64 && second < 128; // 100.64/10
        boolean thisNet = first == 0;
        return !sharedCgnat && !thisNet;
    }
}
