package dev.agentbox.sandbox.channel;

import dev.agentbox.testing.Slow;

/** The helper as the images carry it: static, -O2, fortified (docker/sandboxd/build.sh). */
@Slow
class HostSandboxdTest extends HostSandboxdContract {

    @Override
    boolean sanitized() {
        return false;
    }

    @Override
    HostSandboxd.Transport transport() {
        return HostSandboxd.Transport.UNIX;
    }
}
