package dev.agentbox.platform;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

class CanonicalJsonTest {

    private static JsonValue parse(String json) {
        try (var reader = Json.createReader(new StringReader(json))) {
            return reader.readValue();
        }
    }

    private static String canon(String json) {
        return CanonicalJson.of(parse(json));
    }

    @Test
    void objectKeysAreSortedAndWhitespaceIsRemoved() {
        assertThat(canon("{ \"b\" : 1, \"a\" : [ 1 , { \"d\":true, \"c\":null } ] }"))
                .isEqualTo("{\"a\":[1,{\"c\":null,\"d\":true}],\"b\":1}");
    }

    @Test
    void memberOrderDoesNotChangeTheText() {
        assertThat(canon("{\"x\":1,\"y\":{\"p\":\"q\",\"r\":false}}"))
                .isEqualTo(canon("{\"y\":{\"r\":false,\"p\":\"q\"},\"x\":1}"));
    }

    @Test
    void keysAreSortedByCodePointNotByUtf16Unit() {
        // U+1F600 is a surrogate pair (0xD83D...), U+FF5E is a single unit 0xFF5E.
        // By UTF-16 units the emoji sorts first; by code point it sorts last.
        String emoji = new String(Character.toChars(0x1F600));
        JsonValue value = Json.createObjectBuilder().add(emoji, 1).add("\uFF5E", 2).build();
        assertThat(CanonicalJson.of(value)).isEqualTo("{\"\uFF5E\":2,\"" + emoji + "\":1}");
    }

    @Test
    void shorterKeySortsBeforeItsExtension() {
        assertThat(canon("{\"ab\":1,\"a\":2}")).isEqualTo("{\"a\":2,\"ab\":1}");
    }

    @Test
    void numericallyEqualNumbersHaveOneForm() {
        assertThat(canon("[1, 1.0, 1e0, 10e-1, 1.000]")).isEqualTo("[1,1,1,1,1]");
        assertThat(canon("[-0, 0.0, 0e10]")).isEqualTo("[0,0,0]");
        assertThat(canon("[100, 1e2, 1.5, 1.50, 0.001, -42]"))
                .isEqualTo("[100,100,1.5,1.5,0.001,-42]");
    }

    @Test
    void hugeAndTinyNumbersUseExponentForm() {
        assertThat(canon("[123456789012345678901, 1e22, 1.5e-7, 12345678901234567890123]"))
                .isEqualTo("[123456789012345678901,1E+22,1.5E-7,12345678901234567890123]");
    }

    @Test
    void sameValueWrittenDifferentlyGivesSameText() {
        assertThat(canon("10000000000000000000000")).isEqualTo(canon("1e22")).isEqualTo("1E+22");
        assertThat(canon("1e400")).isEqualTo("1E+400");
    }

    @Test
    void stringsEscapeOnlyWhatJsonRequires() {
        JsonValue value = Json.createValue("q\" b\\ \b\t\n\f\r \u0001 \u001f \u007f é €/<");
        assertThat(CanonicalJson.of(value))
                .isEqualTo("\"q\\\" b\\\\ \\b\\t\\n\\f\\r \\u0001 \\u001f \u007f é €/<\"");
    }

    @Test
    void loneSurrogatesAreEscapedAndPairsKept() {
        String pair = new String(Character.toChars(0x1F600));
        assertThat(CanonicalJson.of(Json.createValue("a\uD800b" + pair + "\uDC00")))
                .isEqualTo("\"a\\ud800b" + pair + "\\udc00\"");
    }

    @Test
    void literalsAreWrittenAsSuch() {
        assertThat(canon("[true,false,null,\"\",{},[]]")).isEqualTo("[true,false,null,\"\",{},[]]");
    }

    @Test
    void sha256HexIsLowercaseHexOfUtf8Bytes() {
        assertThat(CanonicalJson.sha256Hex(""))
                .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assertThat(CanonicalJson.sha256Hex("abc"))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(CanonicalJson.sha256Hex("€"))
                .hasSize(64)
                .matches("[0-9a-f]{64}")
                .isNotEqualTo(CanonicalJson.sha256Hex("?"));
    }

    @Test
    void sha256OfHashesTheCanonicalText() {
        assertThat(CanonicalJson.sha256Of(parse("{\"b\":1,\"a\":2}")))
                .isEqualTo(CanonicalJson.sha256Hex("{\"a\":2,\"b\":1}"));
    }
}
