package dev.agentbox.sandbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.CanonicalJson;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class JournalNamesTest {

    @Test
    void plainRunIdIsKept_JN13() {
        assertThat(JournalNames.encode("run-123")).isEqualTo("run-123");
        assertThat(JournalNames.encode("A.z-9")).isEqualTo("A.z-9");
    }

    @Test
    void slashSpaceAndSemicolonAreHexEscaped_JN13() {
        assertThat(JournalNames.encode("a/b c;d")).isEqualTo("a_2fb_20c_3bd");
    }

    @Test
    void underscoreItselfIsEscapedSoTheEncodingIsUnambiguous_JN13() {
        assertThat(JournalNames.encode("_40")).isEqualTo("_5f40");
        assertThat(JournalNames.decode("_5f40")).contains("_40");
        assertThat(JournalNames.decode("_40")).contains("@");
    }

    @Test
    void everyUtf8ByteOfANonAsciiCharacterIsEscaped() {
        assertThat(JournalNames.encode("é€")).isEqualTo("_c3_a9_e2_82_ac");
    }

    @Test
    void overLongEncodingIsTruncatedAndHashed_JN13() {
        String runId = "r".repeat(201);
        String encoded = JournalNames.encode(runId);
        assertThat(encoded)
                .hasSize(200)
                .isEqualTo("r".repeat(183) + "-" + CanonicalJson.sha256Hex(runId).substring(0, 16))
                .matches("r{183}-[0-9a-f]{16}");
    }

    @Test
    void limitAppliesToTheEncodedLength() {
        assertThat(JournalNames.encode("r".repeat(200))).isEqualTo("r".repeat(200));
        // 67 slashes encode to 201 characters: hashed although the runId is short.
        assertThat(JournalNames.encode("/".repeat(67)))
                .hasSize(200)
                .matches("(_2f){61}-[0-9a-f]{16}");
    }

    @Test
    void distinctLongRunIdsWithTheSamePrefixGetDistinctNames() {
        String prefix = "p".repeat(300);
        assertThat(JournalNames.encode(prefix + "a"))
                .isNotEqualTo(JournalNames.encode(prefix + "b"));
    }

    @Test
    void emptyRunIdIsRejected_JN13() {
        assertThatThrownBy(() -> JournalNames.encode(""))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JournalNames.nonce(""))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void decodeInvertsEncodeForUnhashedNames() {
        for (String runId :
                new String[] {
                    "run-123", "a/b c;d", "_40", "é€ 🙂", "a;touch /tmp/x$(id) b/c", "..", "x_y"
                }) {
            assertThat(JournalNames.decode(JournalNames.encode(runId))).as(runId).contains(runId);
        }
    }

    @Test
    void namesThatNoRunIdEncodesToAreUndecodable() {
        assertThat(JournalNames.decode("")).isEmpty();
        assertThat(JournalNames.decode("a b")).isEmpty(); // raw space
        assertThat(JournalNames.decode("a_2F")).isEmpty(); // uppercase hex
        assertThat(JournalNames.decode("a_2")).isEmpty(); // truncated escape
        assertThat(JournalNames.decode("_41")).isEmpty(); // 'A' would have been kept
        assertThat(JournalNames.decode("_ff")).isEmpty(); // not UTF-8
        assertThat(JournalNames.decode("_c3")).isEmpty(); // truncated UTF-8
        assertThat(JournalNames.decode("ü")).isEmpty(); // raw non-ASCII
    }

    @Test
    void hashedNamesAreUndecodable() {
        String hashed = JournalNames.encode("q".repeat(500));
        assertThat(JournalNames.isHashed(hashed)).isTrue();
        assertThat(JournalNames.decode(hashed)).isEmpty();
        assertThat(JournalNames.isHashed("run-123")).isFalse();
    }

    @Test
    void fileNamesDecodeWithAnyOfTheRunsSuffixes() {
        assertThat(JournalNames.decodeFileName("a_2fb.ndjson")).contains("a/b");
        assertThat(JournalNames.decodeFileName("a_2fb.err")).contains("a/b");
        assertThat(JournalNames.decodeFileName("a_2fb.prompt")).contains("a/b");
        assertThat(JournalNames.decodeFileName("x.ndjson.ndjson")).contains("x.ndjson");
        assertThat(JournalNames.decodeFileName("a_2fb.txt")).isEmpty();
        assertThat(JournalNames.decodeFileName(".ndjson")).isEmpty();
    }

    @Test
    void pathsLiveInTheJournalDirectory() {
        assertThat(JournalNames.journalPath("a/b")).isEqualTo("/tmp/agentbox-runs/a_2fb.ndjson");
        assertThat(JournalNames.errPath("a/b")).isEqualTo("/tmp/agentbox-runs/a_2fb.err");
        assertThat(JournalNames.promptPath("a/b")).isEqualTo("/tmp/agentbox-runs/a_2fb.prompt");
        assertThat(JournalNames.promptPath("/d", "$(x) 'y'"))
                .isEqualTo("/d/_24_28x_29_20_27y_27.prompt");
        assertThat(JournalNames.journalPath("/d", "../../etc/passwd"))
                .isEqualTo("/d/.._2f.._2fetc_2fpasswd.ndjson");
    }

    @Test
    void eachTenantOfASharedFilesystemHasAJournalDirectoryOfItsOwn() {
        assertThat(JournalNames.tenantDirectory("/srv/local", Optional.of("acme/x")))
                .isEqualTo("/srv/local/.agentbox-runs/acme_2fx");
        assertThat(JournalNames.tenantDirectory("/", Optional.of("t")))
                .isEqualTo("/.agentbox-runs/t");
        // without a tenant: a name that is no tenant's encoding
        assertThat(JournalNames.tenantDirectory("/srv/local", Optional.empty()))
                .isEqualTo("/srv/local/.agentbox-runs/_")
                .isEqualTo(JournalNames.tenantDirectory("/srv/local", Optional.of("")));
        assertThat(JournalNames.decode("_")).isEmpty();
        assertThatThrownBy(() -> JournalNames.tenantDirectory("srv", Optional.of("t")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theFallbackNonceOfRecordsWithoutOneIsFirst32HexOfTheDomainSeparatedHash() {
        assertThat(JournalNames.nonce("run-123"))
                .isEqualTo(
                        CanonicalJson.sha256Hex("agentbox/journal-exit-sentinel/v1:run-123")
                                .substring(0, 32))
                .matches("[0-9a-f]{32}");
        assertThat(JournalNames.nonce("run-124")).isNotEqualTo(JournalNames.nonce("run-123"));
    }
}
