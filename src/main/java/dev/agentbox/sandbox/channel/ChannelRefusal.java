package dev.agentbox.sandbox.channel;

/**
 * The helper answered a request with {@code F}: the operation failed for a reason of the sandbox's
 * files (a missing path, a directory where a file was expected), not of the channel.
 *
 * @see <a href="../../../../../../docs/sandbox-channel.md">failure codes</a>
 */
public final class ChannelRefusal extends RuntimeException {

    private final String code;
    private final String detail;

    ChannelRefusal(String code, String detail) {
        super(code + (detail.isEmpty() ? "" : ": " + detail));
        this.code = code;
        this.detail = detail;
    }

    /** {@code ENOENT}, {@code ENOTDIR}, {@code EISDIR}, {@code ENOTREG}, {@code EXDEV}, … */
    public String code() {
        return code;
    }

    public String detail() {
        return detail;
    }

    static ChannelRefusal of(Frame f) {
        String p = f.text();
        int nul = p.indexOf('\0');
        String code = nul < 0 ? p : p.substring(0, nul);
        String detail = nul < 0 ? "" : p.substring(nul + 1);
        // The helper's words are bounded by the frame limit; keep what reaches a message short.
        return new ChannelRefusal(
                code.length() > 32 ? code.substring(0, 32) : code,
                detail.length() > 500 ? detail.substring(0, 500) : detail);
    }
}
