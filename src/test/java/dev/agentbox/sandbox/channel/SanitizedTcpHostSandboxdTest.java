package dev.agentbox.sandbox.channel;

import dev.agentbox.testing.Slow;

/** The TCP cases against the helper built with AddressSanitizer and UBSan. */
@Slow
class SanitizedTcpHostSandboxdTest extends HostSandboxdTcpContract {

    @Override
    boolean sanitized() {
        return true;
    }
}
