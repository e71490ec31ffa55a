package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.api.SafeConfiguration.Settings;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SafeConfigurationTest {

    private static List<String> problems(
            String tokens, String admin, boolean local, boolean localMultiTenant) {
        return SafeConfiguration.problems(
                new Settings(
                        Optional.ofNullable(tokens),
                        false,
                        Optional.ofNullable(admin),
                        local,
                        localMultiTenant));
    }

    private static List<String> problems(String tokens, String admin) {
        return problems(tokens, admin, false, false);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {",", " , ", ",,,", "a", "=x", "a=", " = ", "a=x,b", "a=x,=y", "a = ,b=y"})
    void anEmptyOrGarbledTokenListIsAnErrorNamingTheKeyNotDevMode(String tokens) {
        assertThat(problems(tokens, null))
                .singleElement()
                .asString()
                .startsWith("agentbox.auth.tokens");
    }

    @Test
    void aTenantListedTwiceIsAnError() {
        assertThat(problems("alpha=one,beta=two,alpha=three", null))
                .singleElement()
                .asString()
                .startsWith("agentbox.auth.tokens")
                .contains("\"alpha\" is listed twice");
    }

    @Test
    void oneTokenForTwoTenantsIsAnErrorThatDoesNotPrintTheToken() {
        assertThat(problems("alpha=shared-secret, beta=shared-secret", null))
                .singleElement()
                .asString()
                .startsWith("agentbox.auth.tokens")
                .contains("\"alpha\" and \"beta\"")
                .doesNotContain("shared-secret");
    }

    @ParameterizedTest
    @ValueSource(strings = {"../x=t", "a b=t", "a\nb=t", "-a=t", "a/b=t"})
    void aTenantNameThatIsNotPlainIsAnError(String tokens) {
        assertThat(problems(tokens, null))
                .singleElement()
                .asString()
                .startsWith("agentbox.auth.tokens");
    }

    @Test
    void garbledEntriesNeverEchoTheirToken() {
        assertThat(problems("alpha=sec ret", null))
                .singleElement()
                .asString()
                .startsWith("agentbox.auth.tokens")
                .doesNotContain("sec ret");
        assertThat(problems("=top-secret", null))
                .singleElement()
                .asString()
                .doesNotContain("top-secret");
    }

    @Test
    void localSourcesWithoutARootStopTheStartUpNamingBothKeys() {
        Settings noRoot =
                new Settings(Optional.empty(), false, Optional.empty(), false, false, true, false);
        assertThat(SafeConfiguration.problems(noRoot))
                .singleElement()
                .asString()
                .startsWith("agentbox.sources.local.enabled=true but agentbox.sources.local.root");
        Settings withRoot =
                new Settings(Optional.empty(), false, Optional.empty(), false, false, true, true);
        assertThat(SafeConfiguration.problems(withRoot)).isEmpty();
    }

    @Test
    void aBlankTokenVariableIsAnErrorNotDevMode() {
        Settings blank = new Settings(Optional.empty(), true, Optional.empty(), false, false);
        assertThat(SafeConfiguration.problems(blank))
                .singleElement()
                .asString()
                .startsWith("agentbox.auth.tokens is set but blank");
    }

    @Test
    void blankIsDetectedInEveryEnvironmentSpellingAndAsASystemProperty() {
        String key = SafeConfiguration.TOKENS;
        assertThat(
                        SafeConfigurationCheck.setButBlank(
                                key, Map.of("AGENTBOX_AUTH_TOKENS", ""), Map.of()))
                .isTrue();
        assertThat(
                        SafeConfigurationCheck.setButBlank(
                                key, Map.of("agentbox_auth_tokens", " "), Map.of()))
                .isTrue();
        assertThat(SafeConfigurationCheck.setButBlank(key, Map.of(key, ""), Map.of())).isTrue();
        assertThat(SafeConfigurationCheck.setButBlank(key, Map.of(), Map.of(key, ""))).isTrue();
        assertThat(
                        SafeConfigurationCheck.setButBlank(
                                key, Map.of("AGENTBOX_AUTH_TOKENS", "a=b"), Map.of()))
                .isFalse();
        assertThat(SafeConfigurationCheck.setButBlank(key, Map.of(), Map.of())).isFalse();
    }

    @Test
    void anAdminTenantWithoutATokenIsAnError() {
        assertThat(problems("alpha=a,beta=b", "ops"))
                .singleElement()
                .asString()
                .startsWith("agentbox.auth.admin-tenant")
                .contains("\"ops\"");
        assertThat(problems(null, "ops"))
                .singleElement()
                .asString()
                .startsWith("agentbox.auth.admin-tenant")
                .contains("dev mode");
    }

    @Test
    void theLocalProviderWithSeveralTenantsIsAnErrorUnlessAllowed() {
        assertThat(problems("alpha=a,beta=b", null, true, false))
                .singleElement()
                .asString()
                .startsWith("agentbox.providers.local.enabled")
                .contains("agentbox.providers.local.allow-multi-tenant");
        assertThat(problems("alpha=a,beta=b,ops=o", "ops", true, true)).isEmpty();
    }

    @Test
    void theLocalProviderWithOneTenantOrInDevModeIsFine() {
        assertThat(problems("alpha=a", "alpha", true, false)).isEmpty();
        assertThat(problems(null, null, true, false)).isEmpty();
    }

    @Test
    void goodConfigurationsPass() {
        assertThat(problems(null, null)).isEmpty();
        assertThat(problems("alpha=a", null)).isEmpty();
        assertThat(problems(" alpha = token-a , beta=token-b ,", " beta ")).isEmpty();
        assertThat(problems("tenant-a=token-a,tenant-b=token-b,ops=token-ops", "ops")).isEmpty();
        assertThat(problems("a.b_c-d=dG9rZW4=", null))
                .as("a base64 token keeps its padding")
                .isEmpty();
    }

    @Test
    void everyProblemIsReportedNotOnlyTheFirst() {
        assertThat(problems(",", "ops", true, false)).hasSize(2);
    }
}
