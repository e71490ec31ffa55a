package dev.agentbox.sandbox.channel;

import dev.agentbox.testing.Slow;

/** The helper as the images carry it (static, -O2, fortified), over TCP with its key. */
@Slow
class TcpHostSandboxdTest extends HostSandboxdTcpContract {

    @Override
    boolean sanitized() {
        return false;
    }
}
