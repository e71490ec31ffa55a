package dev.agentbox.sandbox.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.Slow;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The helper's own SHA-256 and HMAC-SHA256 (docker/sandboxd/sha256.c), which authenticate its TCP
 * connections, against the published test vectors — the examples of FIPS 180-4 (NIST's "SHA256"
 * example document) and the test cases of RFC 4231 — and against the JDK's implementations for
 * every message length across the first block boundaries. Built with AddressSanitizer and UBSan
 * ({@code build.sh --vectors}), so an out-of-bounds access fails too.
 */
@Slow
@Timeout(120)
class SandboxdCryptoTest {

    private static final HexFormat HEX = HexFormat.of();

    @Test
    void sha256MatchesTheFips180Examples() throws Exception {
        List<String> digests =
                run(
                        List.of(
                                "sha256 -",
                                "sha256 " + hex("abc"),
                                "sha256 "
                                        + hex(
                                                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                                "sha256 "
                                        + hex(
                                                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                                                        + "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
                                "sha256 " + hex("a") + " 1000000"));
        assertThat(digests)
                .containsExactly(
                        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
                        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
                        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }

    @Test
    void hmacSha256MatchesTheRfc4231TestCases() throws Exception {
        String key7 = "aa".repeat(131);
        List<String> macs =
                run(
                        List.of(
                                "hmac " + "0b".repeat(20) + " " + hex("Hi There"),
                                "hmac " + hex("Jefe") + " " + hex("what do ya want for nothing?"),
                                "hmac " + "aa".repeat(20) + " " + "dd".repeat(50),
                                "hmac 0102030405060708090a0b0c0d0e0f10111213141516171819 "
                                        + "cd".repeat(50),
                                "hmac " + "0c".repeat(20) + " " + hex("Test With Truncation"),
                                "hmac "
                                        + key7
                                        + " "
                                        + hex(
                                                "Test Using Larger Than Block-Size Key - Hash Key"
                                                        + " First"),
                                "hmac "
                                        + key7
                                        + " "
                                        + hex(
                                                "This is a test using a larger than block-size key"
                                                        + " and a larger than block-size data. The key"
                                                        + " needs to be hashed before being used by the"
                                                        + " HMAC algorithm.")));
        assertThat(macs.get(0))
                .isEqualTo("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
        assertThat(macs.get(1))
                .isEqualTo("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
        assertThat(macs.get(2))
                .isEqualTo("773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
        assertThat(macs.get(3))
                .isEqualTo("82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
        // Test case 5 publishes the MAC truncated to 128 bits.
        assertThat(macs.get(4)).startsWith("a3b6167473100ee06e0c796c2955552b");
        assertThat(macs.get(5))
                .isEqualTo("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
        assertThat(macs.get(6))
                .isEqualTo("9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
    }

    /**
     * Every length from 0 to 200 bytes (padding that fits the last block, that needs one more, and
     * messages of several blocks), and keys shorter than, equal to and longer than a block.
     */
    @Test
    void agreesWithTheJdkAcrossBlockBoundaries() throws Exception {
        Random random = new Random(37);
        List<String> requests = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        int[] keyLengths = {1, 20, 32, 63, 64, 65, 131};
        for (int len = 0; len <= 200; len++) {
            byte[] msg = new byte[len];
            random.nextBytes(msg);
            byte[] key = new byte[keyLengths[len % keyLengths.length]];
            random.nextBytes(key);
            String m = len == 0 ? "-" : HEX.formatHex(msg);
            requests.add("sha256 " + m);
            expected.add(HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(msg)));
            requests.add("hmac " + HEX.formatHex(key) + " " + m);
            expected.add(HEX.formatHex(jdkHmac(key, msg)));
        }
        assertThat(run(requests)).containsExactlyElementsOf(expected);
    }

    private static byte[] jdkHmac(byte[] key, byte[] msg) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(msg);
    }

    private static String hex(String ascii) {
        return HEX.formatHex(ascii.getBytes(StandardCharsets.US_ASCII));
    }

    /** Feeds the requests to the vectors filter and returns its answers, one per request. */
    private static List<String> run(List<String> requests) throws Exception {
        ProcessBuilder pb =
                new ProcessBuilder(HostSandboxd.compiled("crypto-vectors", "--vectors").toString());
        HostSandboxd.sanitizerOptions(pb);
        Process p = pb.redirectErrorStream(true).start();
        try (Writer in = p.outputWriter(StandardCharsets.US_ASCII)) {
            for (String r : requests) {
                in.write(r + "\n");
            }
        }
        List<String> out = new ArrayList<>();
        try (BufferedReader r =
                new BufferedReader(
                        new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII))) {
            String line;
            while ((line = r.readLine()) != null) {
                out.add(line);
            }
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("exit status; output %s", out).isZero();
        assertThat(out).hasSize(requests.size());
        return out;
    }
}
