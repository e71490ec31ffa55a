package dev.agentbox.architecture;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The layers of the code, top to bottom, each made of top-level packages of {@code dev.agentbox}
 * with everything under them. The one definition both {@link ArchitectureTest} (the code) and
 * {@link PackageMapTest} (the package map of docs/architecture.md) check against.
 *
 * <p>Invariants: every top-level package is in exactly one layer; a layer may use the layers below
 * it and never one above; packages of one layer may use each other, without cycles.
 */
final class Layers {

    static final String ROOT = "dev.agentbox";

    /** One layer: its name as the package map spells it and its top-level packages. */
    record Layer(String name, List<String> packages) {

        Layer(String name, String... packages) {
            this(name, List.of(packages));
        }

        /** ArchUnit package patterns: each package with everything under it. */
        String[] patterns() {
            return packages.stream().map(p -> ROOT + "." + p + "..").toArray(String[]::new);
        }
    }

    /** Top to bottom. */
    static final List<Layer> TOP_DOWN =
            List.of(
                    new Layer("edge", "api", "health"),
                    new Layer("features", "agent", "webhook", "reaper"),
                    new Layer("interrupts", "interrupt"),
                    new Layer("runs", "run"),
                    new Layer("tools", "tool"),
                    new Layer("sandboxes", "sandbox"),
                    new Layer("foundation", "quota", "platform", "problem"));

    private Layers() {}

    /** The layer of a package of ours ({@code dev.agentbox.run.store} → runs); empty if none. */
    static Optional<Layer> of(String packageName) {
        if (!packageName.startsWith(ROOT + ".")) {
            return Optional.empty();
        }
        String topLevel = packageName.substring(ROOT.length() + 1).split("\\.")[0];
        return TOP_DOWN.stream().filter(l -> l.packages().contains(topLevel)).findFirst();
    }

    /** The names of the layers above {@code layer}, the only ones that may use it. */
    static String[] above(Layer layer) {
        return TOP_DOWN.subList(0, TOP_DOWN.indexOf(layer)).stream()
                .map(Layer::name)
                .toArray(String[]::new);
    }

    /** Every layer's patterns together. */
    static String[] allPatterns() {
        return TOP_DOWN.stream().flatMap(l -> Arrays.stream(l.patterns())).toArray(String[]::new);
    }
}
