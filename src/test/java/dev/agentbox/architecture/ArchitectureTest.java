package dev.agentbox.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package rules of docs/architecture.md, checked on the compiled main classes: no package
 * cycles, leaf or top-level; every class in a layer of {@link Layers} and layers used only from
 * above; HTTP only at the edge, persistence only in stores, providers behind the SPI.
 */
class ArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes =
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("dev.agentbox");
    }

    @Test
    void noPackageDependsOnItselfThroughAnother() {
        slices().matching("dev.agentbox.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void noTopLevelPackageDependsOnItselfThroughAnother() {
        slices().matching("dev.agentbox.(*)..").should().beFreeOfCycles().check(classes);
    }

    @Test
    void everyClassLivesInAPackageSomeLayerNames() {
        classes()
                .should()
                .resideInAnyPackage(Layers.allPatterns())
                .as("every class lives in a package of one of the layers " + Layers.TOP_DOWN)
                .check(classes);
    }

    @Test
    void layersDependOnlyDownwards() {
        LayeredArchitecture layers =
                layeredArchitecture()
                        .consideringOnlyDependenciesInLayers()
                        .ensureAllClassesAreContainedInArchitecture();
        for (Layers.Layer layer : Layers.TOP_DOWN) {
            layers = layers.layer(layer.name()).definedBy(layer.patterns());
        }
        for (Layers.Layer layer : Layers.TOP_DOWN) {
            String[] above = Layers.above(layer);
            layers =
                    above.length == 0
                            ? layers.whereLayer(layer.name()).mayNotBeAccessedByAnyLayer()
                            : layers.whereLayer(layer.name()).mayOnlyBeAccessedByLayers(above);
        }
        layers.check(classes);
    }

    @Test
    void jaxRsAndServletsAreUsedOnlyByTheApi() {
        noClasses()
                .that()
                .resideOutsideOfPackage("dev.agentbox.api..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("jakarta.ws.rs..", "jakarta.servlet..")
                .check(classes);
    }

    @Test
    void persistenceIsUsedOnlyByStoresAndTheirEntities() {
        noClasses()
                .that()
                .resideOutsideOfPackages(
                        "dev.agentbox.run.store..",
                        "dev.agentbox.sandbox.store..",
                        "dev.agentbox.agent.store..",
                        "dev.agentbox.interrupt.store..",
                        "dev.agentbox.webhook.store..",
                        "dev.agentbox.platform..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("jakarta.persistence..")
                .check(classes);
    }

    @Test
    void providersSeeOnlyTheSpiNotTheServiceAboveIt() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "dev.agentbox.sandbox.docker..",
                        "dev.agentbox.sandbox.local..",
                        "dev.agentbox.sandbox.kubernetes..",
                        "dev.agentbox.sandbox.datapath..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.agentbox.sandbox",
                        "dev.agentbox.run",
                        "dev.agentbox.sandbox.store..",
                        "dev.agentbox.api..",
                        "dev.agentbox.reaper..")
                .check(classes);
    }

    @Test
    void theProblemPackageIsNeutral() {
        noClasses()
                .that()
                .resideInAPackage("dev.agentbox.problem..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.agentbox.api..",
                        "dev.agentbox.run..",
                        "dev.agentbox.sandbox..",
                        "dev.agentbox.reaper..",
                        "dev.agentbox.quota..",
                        "jakarta.ws.rs..")
                .check(classes);
    }
}
