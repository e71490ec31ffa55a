package dev.agentbox.interrupt;

import dev.agentbox.interrupt.store.NewInterrupt;
import dev.agentbox.platform.CanonicalJson;

/** A call's key as stored: itself when it fits the column, else a digest of it. */
final class CallKeys {

    private CallKeys() {}

    static String stored(String callKey) {
        if (!callKey.isEmpty() && callKey.length() <= NewInterrupt.MAX_KEY) {
            return callKey;
        }
        // Stable across servers (the same key always maps to the same digest) and unique enough.
        return "sha256:" + CanonicalJson.sha256Hex(callKey);
    }
}
