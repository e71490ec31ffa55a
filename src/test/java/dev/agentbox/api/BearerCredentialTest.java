package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BearerCredentialTest {

    @Test
    void surroundingSpacesAndTabsAreNotPartOfTheToken() {
        assertThat(BearerAuthFilter.credential("Bearer  \ttoken-a \t")).isEqualTo("token-a");
    }

    @Test
    void controlCharactersStayInTheTokenSoItDoesNotMatch() {
        assertThat(BearerAuthFilter.credential("Bearer token-a" + (char) 1))
                .isEqualTo("token-a" + (char) 1);
        assertThat(BearerAuthFilter.credential("Bearer " + (char) 0 + "token-a"))
                .isEqualTo((char) 0 + "token-a");
    }
}
