package dev.agentbox.sandbox.spi;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.Config;

/**
 * The images an ensure may name in {@code image} ({@code agentbox.docker.images}).
 *
 * <ul>
 *   <li>Only exact {@code repo:tag} names match: never an image id, an id prefix or a digest. The
 *       engine would resolve {@code 4f2a} to whichever image id starts with it — another tenant's
 *       snapshot included — so a name the list does not hold verbatim is refused.
 *   <li>Snapshot and fork images are not listed: they are reached only through their own sandbox's
 *       restore or fork, which never go through {@code image}.
 *   <li>Unset, the list is the default image ({@code agentbox.docker.image}), its BusyBox twin and
 *       the agents image (the bookworm sandbox with the claude and codex CLIs, for the {@code
 *       claude-code} and {@code codex} harnesses).
 * </ul>
 */
public record ImageAllowlist(Set<String> names) {

    public static final String KEY = "agentbox.docker.images";
    public static final String BUSYBOX_TWIN = "agentbox/sandbox:busybox";
    public static final String DEFAULT_IMAGE = "agentbox/sandbox:bookworm";
    public static final String AGENTS_IMAGE = "agentbox/sandbox:agents";

    /**
     * {@code [registry[:port]/]path:tag} with Docker's lowercase path components and an explicit
     * tag.
     */
    private static final Pattern REPO_TAG =
            Pattern.compile(
                    // a registry host is recognised only with a dot, a port or as localhost
                    // (Docker's own rule)
                    "(?:(?:localhost|[a-zA-Z0-9-]+\\.[a-zA-Z0-9.-]*[a-zA-Z0-9])(?::[0-9]+)?/|[a-zA-Z0-9-]+:[0-9]+/)?"
                            + "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*"
                            + ":[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");

    public ImageAllowlist {
        for (String n : names) {
            if (!isRepoTag(n)) {
                throw new IllegalArgumentException(
                        KEY + " holds \"" + n + "\", which is not an exact repo:tag image name");
            }
        }
        names = Set.copyOf(names);
    }

    /**
     * The list for a server whose default image is {@code defaultImage}: configured, or that image,
     * the BusyBox twin and the agents image.
     */
    public static ImageAllowlist of(String defaultImage, Optional<List<String>> configured) {
        Set<String> names = new LinkedHashSet<>();
        if (configured.isPresent()) {
            configured.get().stream()
                    .map(String::strip)
                    .filter(s -> !s.isEmpty())
                    .forEach(names::add);
        } else {
            names.addAll(Arrays.asList(defaultImage, BUSYBOX_TWIN, AGENTS_IMAGE));
        }
        return new ImageAllowlist(names);
    }

    public static ImageAllowlist fromConfig(Config c) {
        String defaultImage =
                c.getOptionalValue("agentbox.docker.image", String.class).orElse(DEFAULT_IMAGE);
        Optional<List<String>> configured =
                c.getOptionalValue(KEY, String.class).map(v -> Arrays.asList(v.split(",")));
        return of(defaultImage, configured);
    }

    public static ImageAllowlist defaults() {
        return of(DEFAULT_IMAGE, Optional.empty());
    }

    static boolean isRepoTag(String image) {
        return image.length() <= 255 && REPO_TAG.matcher(image).matches();
    }

    public boolean allows(String image) {
        return names.contains(image);
    }

    /** Refuses {@code image} unless it is on the list, verbatim. */
    public void check(String image) {
        if (!allows(image)) {
            throw notAllowed(image);
        }
    }

    /**
     * {@code 400 image-not-allowed} naming the field; the detail never echoes more than a short,
     * printable prefix.
     */
    public static ProblemException notAllowed(String image) {
        String shown = image.length() > 80 ? image.substring(0, 80) + "…" : image;
        return new ProblemException(
                ProblemCode.IMAGE_NOT_ALLOWED,
                "image \""
                        + shown
                        + "\" is not on this server's image allowlist; name one of its repo:tag images exactly",
                Map.of("field", "image"),
                null);
    }
}
