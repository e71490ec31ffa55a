package dev.agentbox.sandbox.channel;

import dev.agentbox.testing.Slow;

/** The ACP feeder as the images carry it: static, -O2, fortified (docker/sandboxd/build.sh). */
@Slow
class HostAcpFeedTest extends AcpFeedContract {

    @Override
    boolean sanitized() {
        return false;
    }
}
