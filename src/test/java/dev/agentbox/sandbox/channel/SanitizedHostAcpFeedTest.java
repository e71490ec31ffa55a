package dev.agentbox.sandbox.channel;

import dev.agentbox.testing.Slow;

/** The same cases against the feeder built with AddressSanitizer and UBSan. */
@Slow
class SanitizedHostAcpFeedTest extends AcpFeedContract {

    @Override
    boolean sanitized() {
        return true;
    }
}
