package dev.agentbox.sandbox.spi;

import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Git credentials reach git only from the sandbox's secrets, never from a URL.
 *
 * <ul>
 *   <li>A clone URL that carries credentials is refused at parse time, before it is logged, hashed
 *       into a key or stored ({@link #problemWith}): a password in the userinfo of any URL, and any
 *       userinfo at all on http(s)/ftp(s), where a token is often passed as the user name. A plain
 *       user on ssh ({@code git@host:repo}) is a login name, not a secret, and is allowed. The URL
 *       is refused rather than stripped, so nothing the caller meant to send is silently dropped.
 *   <li>{@link #HELPER} is a credential helper given to git with {@code -c} for the clone only: it
 *       answers from the environment every sandbox command gets from its secrets file ({@code
 *       GIT_TOKEN} or {@code GIT_PASSWORD}, user {@code GIT_USERNAME}, default {@value
 *       #DEFAULT_USERNAME}). Nothing is written to {@code .git/config} (so nothing reaches a
 *       snapshot), and the command line holds variable names, never values.
 * </ul>
 */
public final class GitCredentials {

    public static final String DEFAULT_USERNAME = "x-access-token";

    /**
     * Answers only {@code get}, and only when a token is set (otherwise git goes on without
     * credentials, as for a public repository). Runs under {@code sh}, git appends the action.
     */
    public static final String HELPER =
            "!f() { test \"$1\" = get || return 0; "
                    + "p=\"${GIT_TOKEN:-$GIT_PASSWORD}\"; test -n \"$p\" || return 0; "
                    + "printf 'username=%s\\npassword=%s\\n' \"${GIT_USERNAME:-"
                    + DEFAULT_USERNAME
                    + "}\" \"$p\"; }; f";

    private static final Set<String> LOGIN_NAME_SCHEMES = Set.of("ssh", "git+ssh", "ssh+git");

    private GitCredentials() {}

    /**
     * Why {@code url} may not be used as a clone URL, or empty. The reason never repeats the URL.
     */
    public static Optional<String> problemWith(String url) {
        int schemeEnd = url.indexOf("://");
        if (schemeEnd > 0) {
            String scheme = url.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
            String rest = url.substring(schemeEnd + 3);
            int authorityEnd = firstOf(rest, "/?#");
            String authority = rest.substring(0, authorityEnd);
            int at = authority.lastIndexOf('@');
            if (at < 0) {
                return Optional.empty();
            }
            String userinfo = authority.substring(0, at);
            if (userinfo.contains(":") || !LOGIN_NAME_SCHEMES.contains(scheme)) {
                return Optional.of(refusal());
            }
            return Optional.empty();
        }
        // scp-like syntax: [user@]host:path, the host part ending at the first ':'.
        int colon = url.indexOf(':');
        int slash = url.indexOf('/');
        if (colon > 0 && (slash < 0 || colon < slash)) {
            int at = url.lastIndexOf('@', firstOf(url, "/"));
            if (at > 0 && url.substring(0, at).contains(":")) {
                return Optional.of(refusal());
            }
        }
        return Optional.empty();
    }

    private static String refusal() {
        return "must not carry credentials; pass them as workspace.secrets GIT_TOKEN (and GIT_USERNAME)";
    }

    private static int firstOf(String s, String chars) {
        int end = s.length();
        for (char c : chars.toCharArray()) {
            int i = s.indexOf(c);
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        return end;
    }
}
