package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class TenantTokensTest {

    private static TenantTokens tokens(String config, String admin) {
        TenantTokens t = new TenantTokens();
        t.tokensConfig = Optional.ofNullable(config);
        t.adminTenant = Optional.ofNullable(admin);
        t.init();
        return t;
    }

    @Test
    void noTokensMeansDevModeWhereEveryoneIsAdmin() {
        TenantTokens t = tokens(null, null);
        assertThat(t.devMode()).isTrue();
        assertThat(t.isAdmin("default")).isTrue();
    }

    @Test
    void aTokenListThatIsSetButEmptyIsAnErrorNotDevMode() {
        assertThatThrownBy(() -> tokens(" , ", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("agentbox.auth.tokens");
    }

    @Test
    void tokenMapsToItsTenantAndNothingElseMatches() {
        TenantTokens t = tokens("alpha=secret-a, beta=secret-b", "beta");
        assertThat(t.devMode()).isFalse();
        assertThat(t.tenantFor("secret-a")).contains("alpha");
        assertThat(t.tenantFor("secret-b")).contains("beta");
        assertThat(t.tenantFor("secret-")).isEmpty();
        assertThat(t.tenantFor("secret-ab")).isEmpty();
        assertThat(t.tenantFor("")).isEmpty();
    }

    @Test
    void onlyTheConfiguredAdminTenantIsAdmin() {
        TenantTokens t = tokens("alpha=a,beta=b", "beta");
        assertThat(t.isAdmin("beta")).isTrue();
        assertThat(t.isAdmin("alpha")).isFalse();
        assertThat(tokens("alpha=a", null).isAdmin("alpha")).isFalse();
    }

    @Test
    void malformedEntryIsRejectedWithoutEchoingTheToken() {
        assertThatThrownBy(() -> tokens("alpha", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tenant=token");
        assertThatThrownBy(() -> tokens("alpha=", null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
