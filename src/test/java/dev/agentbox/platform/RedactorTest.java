package dev.agentbox.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedactorTest {

    private static final String SECRET = "s3cr3t-Val/ue+with?odd&chars";

    @Test
    void aValueIsReplacedWherever_itAppears() {
        Redactor r = Redactor.of(List.of(SECRET));
        assertThat(r.redact("key=" + SECRET + "\nagain " + SECRET)).isEqualTo("key=***\nagain ***");
    }

    @Test
    void textWithoutSecretsIsReturnedUnchanged() {
        Redactor r = Redactor.of(List.of(SECRET));
        String text = "nothing to see here";
        assertThat(r.redact(text)).isSameAs(text);
        assertThat(r.redact(null)).isNull();
    }

    @Test
    void base64OfTheValueInEveryAlphabetWithAndWithoutPaddingIsMasked() {
        Redactor r = Redactor.of(List.of(SECRET));
        byte[] bytes = SECRET.getBytes(StandardCharsets.UTF_8);
        for (Base64.Encoder enc :
                List.of(
                        Base64.getEncoder(),
                        Base64.getUrlEncoder(),
                        Base64.getEncoder().withoutPadding(),
                        Base64.getUrlEncoder().withoutPadding())) {
            String encoded = enc.encodeToString(bytes);
            assertThat(r.redact("out: " + encoded + " end")).as(encoded).isEqualTo("out: *** end");
        }
    }

    @Test
    void theValueInsideALongerBase64StreamIsMaskedAtEveryByteAlignment() {
        Redactor r = Redactor.of(List.of(SECRET));
        for (String prefix : List.of("", "a", "ab", "abc", "abcd")) {
            for (String suffix : List.of("", "\n", "xy\n")) {
                String stream =
                        Base64.getEncoder()
                                .encodeToString(
                                        (prefix + SECRET + suffix)
                                                .getBytes(StandardCharsets.UTF_8));
                String redacted = r.redact(stream);
                assertThat(redacted)
                        .as("prefix %s suffix %s", prefix.length(), suffix.length())
                        .contains("***");
                // What is left cannot be decoded back into the value.
                assertThat(decodedLeftovers(redacted))
                        .doesNotContain(SECRET)
                        .doesNotContain(SECRET.substring(0, SECRET.length() - 2));
            }
        }
    }

    @Test
    void echoPipedToBase64IsMasked() {
        // `echo "$API_KEY" | base64` encodes the value plus a newline.
        String secret = "s3cr3t-4f9c2e7a";
        String printed =
                Base64.getMimeEncoder()
                        .encodeToString((secret + "\n").getBytes(StandardCharsets.UTF_8));
        assertThat(Redactor.of(List.of(secret)).redact(printed))
                .contains("***")
                .doesNotContain(printed);
    }

    @Test
    void urlEncodedFormsAreMasked() {
        Redactor r = Redactor.of(List.of("p@ss word/with:colon"));
        assertThat(
                        r.redact(
                                "https://host/?t="
                                        + URLEncoder.encode(
                                                "p@ss word/with:colon", StandardCharsets.UTF_8)))
                .isEqualTo("https://host/?t=***");
        assertThat(r.redact("https://host/?t=p%40ss%20word%2Fwith%3Acolon"))
                .isEqualTo("https://host/?t=***");
    }

    @Test
    void valuesShorterThanFourCharactersAreIgnoredSoOutputIsNotShredded() {
        Redactor r = Redactor.of(List.of("1", "yes", ""));
        assertThat(r.isEmpty()).isTrue();
        assertThat(r.redact("yes 1 2 3")).isEqualTo("yes 1 2 3");
        assertThat(Redactor.of(Arrays.asList("abcd", null)).redact("xabcdx")).isEqualTo("x***x");
    }

    @Test
    void theLongestValueIsMaskedWholeWhenItContainsAnother() {
        Redactor r = Redactor.of(List.of("token", "token-extended-value"));
        assertThat(r.redact("a token-extended-value b token c")).isEqualTo("a *** b *** c");
    }

    @Test
    void regexMetacharactersInValuesAreTakenLiterally() {
        Redactor r = Redactor.of(List.of("a.b*c$(d)\\e"));
        assertThat(r.redact("x a.b*c$(d)\\e y aXbbc")).isEqualTo("x *** y aXbbc");
    }

    @Test
    void aTailThatBeginsInsideAValueHasThatRemnantMasked() {
        Redactor r = Redactor.of(List.of("abcdefghij"));
        assertThat(r.redactTail("efghij\nerror: bad key")).isEqualTo("***\nerror: bad key");
        assertThat(r.redactTail("hij then abcdefghij"))
                .as("remnants under 4 characters stay")
                .isEqualTo("hij then ***");
        assertThat(r.redactTail("plain output")).isEqualTo("plain output");
    }

    @Test
    void
            atMostTheHundredLongestValuesAreTakenWhateverTheirOrderSoAGrownSecretsFileCannotMakeRedactionUnbounded() {
        List<String> many =
                new java.util.ArrayList<>(
                        java.util.stream.IntStream.range(0, 150)
                                .mapToObj(i -> "v".repeat(4 + i / 10) + "-" + (1000 + i))
                                .toList());
        java.util.Collections.shuffle(many, new java.util.Random(7));
        Redactor r = Redactor.of(many);
        assertThat(r.redact("v".repeat(18) + "-1149")).as("among the longest").isEqualTo("***");
        assertThat(r.redact("vvvv-1000")).as("among the shortest").isEqualTo("vvvv-1000");
        java.util.Collections.reverse(many);
        assertThat(Redactor.of(many).redact("vvvvvvvvv-1050"))
                .isEqualTo(r.redact("vvvvvvvvv-1050"));
    }

    @Test
    void noneChangesNothing() {
        assertThat(Redactor.none().isEmpty()).isTrue();
        assertThat(Redactor.none().redact(SECRET)).isEqualTo(SECRET);
    }

    /**
     * Decodes each maximal base64 run of {@code text} that survived redaction, at every alignment.
     */
    private static String decodedLeftovers(String text) {
        StringBuilder out = new StringBuilder();
        for (String part : text.split("\\*\\*\\*")) {
            for (int skip = 0; skip < 4 && skip < part.length(); skip++) {
                String s = part.substring(skip);
                s = s.substring(0, s.length() - s.length() % 4);
                try {
                    out.append(
                                    new String(
                                            Base64.getDecoder().decode(s),
                                            StandardCharsets.ISO_8859_1))
                            .append('|');
                } catch (IllegalArgumentException notBase64) {
                    // padding in the middle: not a decodable leftover
                }
            }
        }
        return out.toString();
    }
}
