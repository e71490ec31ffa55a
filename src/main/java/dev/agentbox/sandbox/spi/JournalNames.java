package dev.agentbox.sandbox.spi;

import dev.agentbox.platform.CanonicalJson;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Names of a run's files inside the sandbox (journal, stderr, prompt), of the directory that holds
 * them, and the exit-sentinel nonce that runs recorded before nonces were stored fall back to. A
 * layout convention both sides share: the run side writes and reads these files, the providers
 * place the directory, and the reaper prunes it; so it lives with the sandbox contracts, below all
 * three.
 *
 * <p>Directory: each sandbox says where its journals go ({@link SandboxHandle#journalDirectory()}),
 * because run identity is (tenant, runId) and two tenants may use the same runId:
 *
 * <ul>
 *   <li>a container has a /tmp of its own and belongs to one tenant: {@value #DEFAULT_DIR};
 *   <li>sandboxes that share one filesystem (the local provider's host) get one directory per
 *       tenant, {@link #tenantDirectory}, so a tenant's journal never shares a name, a listing or a
 *       prune with another tenant's.
 * </ul>
 *
 * <p>Encoding of a runId into a file name ({@code <enc>}): every byte of the UTF-8 runId that is an
 * ASCII letter, digit, {@code .} or {@code -} is kept; every other byte (including {@code _}
 * itself, so the escape is unambiguous) becomes {@code _hh} in lowercase hex. An encoding longer
 * than {@value #MAX_NAME_CHARS} characters is replaced by its first {@value #HASHED_PREFIX_CHARS}
 * characters, {@code -} and the first 16 hex characters of sha256(runId) — exactly {@value
 * #MAX_NAME_CHARS} characters. The result never contains {@code /}, whitespace or any shell
 * metacharacter, so a journal path can never leave its directory whatever the runId.
 *
 * <p>Invariants: {@code decode(encode(id)) == Optional.of(id)} for every runId whose encoding was
 * not hashed; {@code encode} is a pure function (same runId, same name on every server).
 */
public final class JournalNames {

    /** The journal directory of a sandbox that has a filesystem of its own (a container). */
    public static final String DEFAULT_DIR = SandboxHandle.DEFAULT_JOURNAL_DIRECTORY;

    /**
     * The folder, under a shared filesystem's root, that holds one journal directory per tenant.
     */
    public static final String TENANT_DIRS = ".agentbox-runs";

    /**
     * The journal directory of sandboxes made without a tenant: {@code _} alone is no tenant's
     * encoding.
     */
    static final String NO_TENANT = "_";

    public static final String JOURNAL_SUFFIX = ".ndjson";
    public static final String ERR_SUFFIX = ".err";
    public static final String PROMPT_SUFFIX = ".prompt";

    /** The run's tool-bridge mailbox, a directory (docs/sandbox-channel.md). */
    public static final String MAILBOX_SUFFIX = ".mcp";

    public static final int MAX_NAME_CHARS = 200;
    public static final int HASHED_PREFIX_CHARS = 183;
    private static final String NONCE_DOMAIN = "agentbox/journal-exit-sentinel/v1:";
    private static final Pattern HASHED_SHAPE =
            Pattern.compile("^.{183}-[0-9a-f]{16}$", Pattern.DOTALL);

    private JournalNames() {}

    /**
     * The file-name form of {@code runId}.
     *
     * @throws IllegalArgumentException for an empty runId (it would name the directory itself)
     */
    public static String encode(String runId) {
        requireRunId(runId);
        StringBuilder out = new StringBuilder();
        for (byte b : runId.getBytes(StandardCharsets.UTF_8)) {
            int u = b & 0xff;
            if (isKept(u)) {
                out.append((char) u);
            } else {
                out.append('_').append(HexFormat.of().toHexDigits(b));
            }
        }
        if (out.length() <= MAX_NAME_CHARS) {
            return out.toString();
        }
        return out.substring(0, HASHED_PREFIX_CHARS)
                + "-"
                + CanonicalJson.sha256Hex(runId).substring(0, 16);
    }

    /**
     * The runId a file-name form stands for, or empty when the name is not the encoding of any
     * runId: a byte outside the kept set, a malformed or uppercase escape, an escaped byte that
     * would have been kept, bytes that are not UTF-8, or a hashed name (a hash cannot be inverted).
     * A 200-character name of the hashed shape is always treated as hashed: such a name is
     * ambiguous, and "cannot decode" is the safe answer for a caller deciding whether a journal may
     * be deleted.
     */
    public static Optional<String> decode(String encoded) {
        if (encoded.isEmpty() || isHashed(encoded)) {
            return Optional.empty();
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c < 0x80 && isKept(c)) {
                bytes.write(c);
            } else if (c == '_'
                    && i + 2 < encoded.length()
                    && isLowerHex(encoded.charAt(i + 1))
                    && isLowerHex(encoded.charAt(i + 2))) {
                int u = HexFormat.fromHexDigits(encoded, i + 1, i + 3);
                if (isKept(u)) {
                    return Optional.empty(); // not canonical: encode would have kept this byte
                }
                bytes.write(u);
                i += 2;
            } else {
                return Optional.empty();
            }
        }
        try {
            String runId =
                    StandardCharsets.UTF_8
                            .newDecoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(bytes.toByteArray()))
                            .toString();
            return Optional.of(runId);
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    /**
     * The runId of one of a run's file names ({@code <enc>.ndjson}, {@code <enc>.err}, {@code
     * <enc>.prompt}), or empty when the name has none of those suffixes or does not decode.
     */
    public static Optional<String> decodeFileName(String fileName) {
        for (String suffix : new String[] {JOURNAL_SUFFIX, ERR_SUFFIX, PROMPT_SUFFIX}) {
            if (fileName.endsWith(suffix)) {
                return decode(fileName.substring(0, fileName.length() - suffix.length()));
            }
        }
        return Optional.empty();
    }

    /**
     * {@code <parent>/.agentbox-runs/<enc(tenant)>}: the journal directory of a tenant's sandboxes
     * on a filesystem that sandboxes of several tenants share. A sandbox without a tenant (absent
     * or empty) gets {@code <parent>/.agentbox-runs/_}, which no tenant's encoding can be. A pure
     * function: the same tenant has the same directory on every server and after every restart.
     *
     * @param parent absolute, without a trailing slash unless it is {@code /}
     */
    public static String tenantDirectory(String parent, Optional<String> tenant) {
        if (!parent.startsWith("/")) {
            throw new IllegalArgumentException("parent must be absolute: " + parent);
        }
        String name = tenant.filter(t -> !t.isEmpty()).map(JournalNames::encode).orElse(NO_TENANT);
        return (parent.equals("/") ? "" : parent) + "/" + TENANT_DIRS + "/" + name;
    }

    /** Whether the name has the shape of a hashed (over-long) encoding. */
    public static boolean isHashed(String encoded) {
        return encoded.length() == MAX_NAME_CHARS && HASHED_SHAPE.matcher(encoded).matches();
    }

    /**
     * {@code /tmp/agentbox-runs/<enc>.ndjson}: in a container's directory, {@link #DEFAULT_DIR}.
     */
    public static String journalPath(String runId) {
        return journalPath(DEFAULT_DIR, runId);
    }

    /** {@code /tmp/agentbox-runs/<enc>.err}: in a container's directory, {@link #DEFAULT_DIR}. */
    public static String errPath(String runId) {
        return errPath(DEFAULT_DIR, runId);
    }

    /** {@code <dir>/<enc>.ndjson}; {@code dir} without a trailing slash. */
    public static String journalPath(String dir, String runId) {
        return dir + "/" + encode(runId) + JOURNAL_SUFFIX;
    }

    /** {@code <dir>/<enc>.err}; {@code dir} without a trailing slash. */
    public static String errPath(String dir, String runId) {
        return dir + "/" + encode(runId) + ERR_SUFFIX;
    }

    /**
     * {@code /tmp/agentbox-runs/<enc>.prompt}, the prompt a CLI agent reads on its stdin: in {@link
     * #DEFAULT_DIR}.
     */
    public static String promptPath(String runId) {
        return promptPath(DEFAULT_DIR, runId);
    }

    /** {@code <dir>/<enc>.prompt}; {@code dir} without a trailing slash. */
    public static String promptPath(String dir, String runId) {
        return dir + "/" + encode(runId) + PROMPT_SUFFIX;
    }

    /**
     * {@code <dir>/<enc>.mcp}, the directory of the run's tool-bridge mailbox; {@code dir} without
     * a trailing slash.
     */
    public static String mailboxPath(String dir, String runId) {
        return dir + "/" + encode(runId) + MAILBOX_SUFFIX;
    }

    /**
     * The nonce derived from the runId: the first 32 hex characters of sha256({@code
     * "agentbox/journal-exit-sentinel/v1:" + runId}). Only the fallback for a run recorded before
     * nonces were stored ({@code JournalId.derived}): anyone who knows the scheme and the runId can
     * compute it, so a new run gets a random nonce instead ({@code JournalId.random}).
     */
    public static String nonce(String runId) {
        requireRunId(runId);
        return CanonicalJson.sha256Hex(NONCE_DOMAIN + runId).substring(0, 32);
    }

    private static void requireRunId(String runId) {
        if (runId == null || runId.isEmpty()) {
            throw new IllegalArgumentException("runId must not be empty");
        }
    }

    private static boolean isKept(int u) {
        return (u >= 'A' && u <= 'Z')
                || (u >= 'a' && u <= 'z')
                || (u >= '0' && u <= '9')
                || u == '.'
                || u == '-';
    }

    private static boolean isLowerHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    }
}
