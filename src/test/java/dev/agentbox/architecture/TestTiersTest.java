package dev.agentbox.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.agentbox.testing.PostgresPass;
import org.junit.jupiter.api.Test;

/**
 * The test tiers hold: a test that runs only on PostgreSQL is in the PostgreSQL pass, so it can
 * never be left out of both passes by a missing tag.
 */
class TestTiersTest {

    private static final JavaClasses TESTS =
            new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
                    .importPackages("dev.agentbox");

    @Test
    void everyPostgresOnlyIntegrationTestIsInThePostgresPass() {
        classes()
                .that()
                .haveSimpleNameEndingWith("PostgresIT")
                .should()
                .beAnnotatedWith(PostgresPass.class)
                .because("the postgres profile runs only tests tagged postgres-pass")
                .check(TESTS);
    }
}
