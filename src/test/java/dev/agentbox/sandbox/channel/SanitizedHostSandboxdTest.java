package dev.agentbox.sandbox.channel;

import dev.agentbox.testing.Slow;

/**
 * The same cases against the helper built with AddressSanitizer and UBSan ({@code build.sh
 * --sanitize}): any report, from the supervisor, the server or a handler, fails the case.
 */
@Slow
class SanitizedHostSandboxdTest extends HostSandboxdContract {

    @Override
    boolean sanitized() {
        return true;
    }

    @Override
    HostSandboxd.Transport transport() {
        return HostSandboxd.Transport.UNIX;
    }
}
