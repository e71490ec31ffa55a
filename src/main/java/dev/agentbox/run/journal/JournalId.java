package dev.agentbox.run.journal;

import dev.agentbox.sandbox.spi.JournalNames;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * One run's journal as a writer and its readers must agree on it: the runId, which names the files
 * ({@link JournalNames}), and the run's exit-sentinel nonce, which tells the real end of the
 * journal from a line the agent printed ({@link ExitSentinel}).
 *
 * <p>The nonce is random per run and kept with the run's record ({@link #newNonce()}); it is never
 * computed from the runId, so an agent that knows its runId still cannot write a sentinel that ends
 * its own journal. Two runs with the same runId (one per tenant) thus have different nonces. {@link
 * #derived(String)} exists only for records written before nonces were stored.
 *
 * <p>Not the run's identity in the store ({@code RunRef}), and not a file name: only a pair of
 * values every journal operation needs together.
 *
 * @param runId the run's client-chosen id, non-empty
 * @param nonce {@value #NONCE_LENGTH} lowercase hex characters
 */
public record JournalId(String runId, String nonce) {

    /** Length of a nonce: 32 lowercase hex characters (128 bits). */
    public static final int NONCE_LENGTH = 32;

    private static final Pattern NONCE = Pattern.compile("[0-9a-f]{" + NONCE_LENGTH + "}");
    private static final SecureRandom RANDOM = new SecureRandom();

    public JournalId {
        if (runId == null || runId.isEmpty()) {
            throw new IllegalArgumentException("runId must not be empty");
        }
        requireNonce(nonce);
    }

    /**
     * {@code nonce} when it has a nonce's shape.
     *
     * @throws IllegalArgumentException when it is not {@value #NONCE_LENGTH} lowercase hex
     *     characters
     */
    public static String requireNonce(String nonce) {
        if (nonce == null || !NONCE.matcher(nonce).matches()) {
            throw new IllegalArgumentException(
                    "nonce must be " + NONCE_LENGTH + " lowercase hex characters");
        }
        return nonce;
    }

    /** A fresh nonce: 128 random bits as hex. */
    public static String newNonce() {
        byte[] b = new byte[NONCE_LENGTH / 2];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** The journal of {@code runId} with a fresh random nonce (what a new run gets). */
    public static JournalId random(String runId) {
        return new JournalId(runId, newNonce());
    }

    /**
     * The journal of a run recorded before nonces were stored: its nonce is the one that version
     * derived from the runId ({@link JournalNames#nonce}). Never use it for a new run.
     */
    public static JournalId derived(String runId) {
        return new JournalId(runId, JournalNames.nonce(runId));
    }
}
