package dev.agentbox.sandbox.datapath;

/** Paths a caller gives, as the sandbox's absolute paths. */
public final class SandboxPaths {

    private SandboxPaths() {}

    /** {@code path} as is when absolute; otherwise relative to {@code workspace}. */
    public static String absolute(String workspace, String path) {
        if (path.startsWith("/")) {
            return path;
        }
        String p = path.startsWith("./") ? path.substring(2) : path;
        return p.isEmpty() || p.equals(".") ? workspace : workspace + "/" + p;
    }
}
