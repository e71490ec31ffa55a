package dev.agentbox.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Executable;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeSet;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * Configuration defaults live in one place, {@code META-INF/microprofile-config.properties}: an
 * injected {@code agentbox.*} key carries no {@code defaultValue} of its own, and every required
 * one has its default in the file (a missing one would fail the deployment).
 */
class ConfigDefaultsTest {

    @Test
    void everyInjectedKeyHasItsDefaultInTheOneConfigurationFile() throws IOException {
        Properties defaults = new Properties();
        try (InputStream in =
                getClass().getResourceAsStream("/META-INF/microprofile-config.properties")) {
            defaults.load(in);
        }
        List<String> inlineDefaults = new ArrayList<>();
        TreeSet<String> missing = new TreeSet<>();
        TreeSet<String> seen = new TreeSet<>();
        for (JavaClass c :
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("dev.agentbox")) {
            for (Injected i : injectedKeys(c.reflect())) {
                if (!i.key().startsWith("agentbox.")) {
                    continue;
                }
                seen.add(i.key());
                if (!i.annotation().defaultValue().equals(ConfigProperty.UNCONFIGURED_VALUE)) {
                    inlineDefaults.add(c.getSimpleName() + ": " + i.key());
                }
                if (!i.optional() && !defaults.containsKey(i.key())) {
                    missing.add(i.key());
                }
            }
        }
        assertThat(seen).as("injected agentbox keys found").isNotEmpty();
        assertThat(inlineDefaults).as("defaults written beside an injection point").isEmpty();
        assertThat(missing)
                .as("required keys without a default in microprofile-config.properties")
                .isEmpty();
    }

    private record Injected(String key, ConfigProperty annotation, boolean optional) {}

    private static List<Injected> injectedKeys(Class<?> type) {
        List<Injected> found = new ArrayList<>();
        for (var f : type.getDeclaredFields()) {
            add(
                    found,
                    f,
                    Optional.class.isAssignableFrom(f.getType())
                            || f.getType().getSimpleName().startsWith("Optional"));
        }
        List<Executable> executables = new ArrayList<>(List.of(type.getDeclaredConstructors()));
        executables.addAll(List.of(type.getDeclaredMethods()));
        for (Executable e : executables) {
            for (var p : e.getParameters()) {
                add(
                        found,
                        p,
                        Optional.class.isAssignableFrom(p.getType())
                                || p.getType().getSimpleName().startsWith("Optional"));
            }
        }
        return found;
    }

    private static void add(List<Injected> found, AnnotatedElement element, boolean optional) {
        ConfigProperty cp = element.getAnnotation(ConfigProperty.class);
        if (cp != null) {
            found.add(new Injected(cp.name(), cp, optional));
        }
    }
}
