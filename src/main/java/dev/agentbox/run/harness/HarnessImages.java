package dev.agentbox.run.harness;

import dev.agentbox.sandbox.spi.ImageAllowlist;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * The image a CLI harness's sandbox is made from when its ensure body names none ({@code
 * agentbox.harness.claude-code.image}, {@code agentbox.harness.codex.image}, {@code
 * agentbox.harness.acp.image}; all default to {@code agentbox/sandbox:agents}, the image with the
 * real CLIs and ACP agents). The {@code command} harness has none: its sandboxes get the provider's
 * default image. An image named in the request always wins.
 *
 * <p>Invariant: only the CLI harnesses have an entry; the image is applied like a named one, so it
 * is part of the sandbox key (a thread's claude-code sandbox is never a command run's) and must be
 * on the image allowlist.
 */
public record HarnessImages(Map<Harness, String> images) {

    public HarnessImages {
        if (images.containsKey(Harness.COMMAND)) {
            throw new IllegalArgumentException("the command harness has no image of its own");
        }
        images = Map.copyOf(images);
    }

    /** The configuration key of {@code harness}'s image. */
    public static String key(Harness harness) {
        return "agentbox.harness." + harness.wireName() + ".image";
    }

    /** Both CLI harnesses on the agents image. */
    public static HarnessImages defaults() {
        return new HarnessImages(
                Map.of(
                        Harness.CLAUDE_CODE,
                        ImageAllowlist.AGENTS_IMAGE,
                        Harness.CODEX,
                        ImageAllowlist.AGENTS_IMAGE,
                        Harness.ACP,
                        ImageAllowlist.AGENTS_IMAGE));
    }

    public static HarnessImages fromConfig(Config c) {
        Map<Harness, String> images = new EnumMap<>(Harness.class);
        for (Harness h : new Harness[] {Harness.CLAUDE_CODE, Harness.CODEX, Harness.ACP}) {
            images.put(
                    h,
                    c.getOptionalValue(key(h), String.class)
                            .map(String::strip)
                            .filter(s -> !s.isEmpty())
                            .orElse(ImageAllowlist.AGENTS_IMAGE));
        }
        return new HarnessImages(images);
    }

    /** The image {@code harness}'s sandboxes default to, if it has one. */
    public Optional<String> imageFor(Harness harness) {
        return Optional.ofNullable(images.get(harness));
    }
}
