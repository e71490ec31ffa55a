package dev.agentbox.tool.http;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signature agentbox puts on what it posts (HTTP tools, webhooks): {@code X-Agentbox-Timestamp:
 * <unix seconds>} and {@code X-Agentbox-Signature: sha256=<hex>}, the HMAC-SHA256 with the
 * definition's secret of {@code <timestamp>.<body>}. The timestamp is inside the MAC so a receiver
 * can refuse an old request replayed.
 */
public final class RequestSigner {

    public static final String SIGNATURE_HEADER = "X-Agentbox-Signature";
    public static final String TIMESTAMP_HEADER = "X-Agentbox-Timestamp";

    private RequestSigner() {}

    public static String sign(byte[] secret, long timestampSeconds, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update((timestampSeconds + ".").getBytes(StandardCharsets.US_ASCII));
            return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }
}
