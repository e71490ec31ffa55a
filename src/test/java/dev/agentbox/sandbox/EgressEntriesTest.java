package dev.agentbox.sandbox;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.EgressRule;
import dev.agentbox.sandbox.spi.EgressRule.Kind;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The corpus of egress entries: what each good spelling means, and why each bad one is refused
 * (EG-09).
 */
class EgressEntriesTest {

    private static final String FIELD = "policy.egress.allow[2]";

    /** text as sent, kind, the entry's canonical text. */
    static Stream<Arguments> names() {
        return Stream.of(
                Arguments.of("api.anthropic.com", Kind.HOST, "api.anthropic.com"),
                Arguments.of("API.Anthropic.COM.", Kind.HOST, "api.anthropic.com"),
                Arguments.of("*.npmjs.org", Kind.SUBDOMAINS, "*.npmjs.org"),
                Arguments.of("*.NPMJS.org.", Kind.SUBDOMAINS, "*.npmjs.org"),
                Arguments.of("*.co.uk", Kind.SUBDOMAINS, "*.co.uk"),
                Arguments.of("git.example.com:8443", Kind.HOST, "git.example.com:8443"),
                Arguments.of("git.example.com.:8443", Kind.HOST, "git.example.com:8443"),
                Arguments.of("*.example.com:443", Kind.SUBDOMAINS, "*.example.com:443"),
                Arguments.of("example.com:1", Kind.HOST, "example.com:1"),
                Arguments.of("example.com:65535", Kind.HOST, "example.com:65535"),
                Arguments.of("gitlab", Kind.HOST, "gitlab"),
                Arguments.of("1password.com", Kind.HOST, "1password.com"),
                Arguments.of("a-b.c-d.example", Kind.HOST, "a-b.c-d.example"),
                Arguments.of("xn--bcher-kva.example", Kind.HOST, "xn--bcher-kva.example"),
                Arguments.of("a".repeat(63) + ".example", Kind.HOST, "a".repeat(63) + ".example"),
                Arguments.of(longName(253), Kind.HOST, longName(253)));
    }

    /** Addresses and blocks, where the operator allows IP literals. */
    static Stream<Arguments> addresses() {
        return Stream.of(
                Arguments.of("10.0.0.1", Kind.IP, "10.0.0.1"),
                Arguments.of("10.0.0.1:8080", Kind.IP, "10.0.0.1:8080"),
                Arguments.of("0.0.0.0", Kind.IP, "0.0.0.0"),
                Arguments.of("255.255.255.255", Kind.IP, "255.255.255.255"),
                Arguments.of("10.0.0.0/8", Kind.CIDR, "10.0.0.0/8"),
                Arguments.of("10.0.0.0/8:443", Kind.CIDR, "10.0.0.0/8:443"),
                Arguments.of("192.168.1.7/32", Kind.CIDR, "192.168.1.7/32"),
                Arguments.of("0.0.0.0/0", Kind.CIDR, "0.0.0.0/0"),
                Arguments.of("[::1]", Kind.IP, "[::1]"),
                Arguments.of("[::1]:443", Kind.IP, "[::1]:443"),
                Arguments.of("[::]", Kind.IP, "[::]"),
                Arguments.of("[2001:DB8:0:0:0:0:0:1]", Kind.IP, "[2001:db8::1]"),
                Arguments.of("[2001:0db8::0001]", Kind.IP, "[2001:db8::1]"),
                Arguments.of("[1:0:0:2:0:0:0:3]", Kind.IP, "[1:0:0:2::3]"),
                Arguments.of("[1:0:0:2:0:0:3:4]", Kind.IP, "[1::2:0:0:3:4]"),
                Arguments.of("[1:2:3:4:5:6:0:8]", Kind.IP, "[1:2:3:4:5:6:0:8]"),
                Arguments.of("[::ffff:10.0.0.1]", Kind.IP, "[::ffff:a00:1]"),
                Arguments.of("[fd00::]/8", Kind.CIDR, "[fd00::]/8"),
                Arguments.of("[fd00::]/8:443", Kind.CIDR, "[fd00::]/8:443"),
                Arguments.of("[2001:db8::]/32", Kind.CIDR, "[2001:db8::]/32"),
                Arguments.of("[::1]/128", Kind.CIDR, "[::1]/128"));
    }

    /** text, the start of what the detail says after the field. */
    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("", "must not be empty"),
                Arguments.of(" api.anthropic.com", "must not contain whitespace"),
                Arguments.of("api.anthropic.com ", "must not contain whitespace"),
                Arguments.of("api.anthropic\t.com", "must not contain whitespace"),
                Arguments.of("api.anthropic.com\n", "must not contain whitespace"),
                Arguments.of("api\u0000.com", "must not contain whitespace"),
                Arguments.of("bücher.example", "must be ASCII"),
                Arguments.of("https://api.anthropic.com", "must be a host name, not a URL"),
                Arguments.of("http://10.0.0.1", "must be a host name, not a URL"),
                Arguments.of("api.anthropic.com/v1", "must be a host name without a path"),
                Arguments.of("api.anthropic.com:443/v1", "must be a host name without a path"),
                Arguments.of("user@example.com", "must be a host name without user information"),
                Arguments.of("user:pw@example.com", "must be a host name without user"),
                Arguments.of("example.com?x=1", "may hold only letters"),
                Arguments.of("example.com#x", "may hold only letters"),
                Arguments.of("*", "is a bare *"),
                Arguments.of("*.", "is a bare *"),
                Arguments.of("*:443", "is a bare *"),
                Arguments.of("*.com", "is too broad"),
                Arguments.of("*.com.", "is too broad"),
                Arguments.of("*.localhost", "is too broad"),
                Arguments.of("**.example.com", "may hold * only as its whole first label"),
                Arguments.of("*example.com", "may hold * only as its whole first label"),
                Arguments.of("a.*.example.com", "may hold * only as its whole first label"),
                Arguments.of("*.*.example.com", "may hold * only as its whole first label"),
                Arguments.of("example.*", "may hold * only as its whole first label"),
                Arguments.of("example..com", "has an empty label"),
                Arguments.of(".example.com", "has an empty label"),
                Arguments.of("example.com..", "has an empty label"),
                Arguments.of(".", "has no host name"),
                Arguments.of(":443", "has no host name"),
                Arguments.of("a".repeat(64) + ".example", "has a label longer than 63"),
                Arguments.of(longName(254), "is longer than 253 characters"),
                Arguments.of("x".repeat(300), "is longer than 270 characters"),
                Arguments.of("exa_mple.com", "may hold only letters"),
                Arguments.of("exa%mple.com", "may hold only letters"),
                Arguments.of("-example.com", "has a label that starts or ends with a hyphen"),
                Arguments.of("example-.com", "has a label that starts or ends with a hyphen"),
                Arguments.of("example.com:", "has an invalid port"),
                Arguments.of("example.com:0", "has an invalid port"),
                Arguments.of("example.com:65536", "has an invalid port"),
                Arguments.of("example.com:0443", "has an invalid port"),
                Arguments.of("example.com:+443", "has an invalid port"),
                Arguments.of("example.com:-1", "has an invalid port"),
                Arguments.of("example.com:443a", "has an invalid port"),
                Arguments.of("example.com:99999999999", "has an invalid port"),
                Arguments.of("example.com:443:80", "has more than one ':'"),
                Arguments.of("::1", "has more than one ':'"),
                Arguments.of("2001:db8::1", "has more than one ':'"),
                Arguments.of("example.123", "must not end in an all-digit label"),
                Arguments.of("0x7f.0.0.1", "must not end in an all-digit label"),
                Arguments.of("localhost", "names the loopback host"),
                Arguments.of("LocalHost.", "names the loopback host"),
                Arguments.of("api.localhost", "names the loopback host"),
                Arguments.of("10.0.0.256", "is not an IPv4 address"),
                Arguments.of("10.0.0", "is not an IPv4 address"),
                Arguments.of("10.0.0.1.5", "is not an IPv4 address"),
                Arguments.of("010.0.0.1", "is not an IPv4 address"),
                Arguments.of("10..0.1", "is not an IPv4 address"),
                Arguments.of("2130706433", "is not an IPv4 address"),
                Arguments.of("10.0.0.0/33", "has an invalid prefix length"),
                Arguments.of("10.0.0.0/08", "has an invalid prefix length"),
                Arguments.of("10.0.0.0/", "has an invalid prefix length"),
                Arguments.of("10.0.0.0/8/8", "has an invalid prefix length"),
                Arguments.of("10.0.0.1/8", "has address bits set beyond its prefix length"),
                Arguments.of("[::1", "has a '[' without its ']'"),
                Arguments.of("[::1]x", "has something after the ']'"),
                Arguments.of("[::1].", "has something after the ']'"),
                Arguments.of("[::1]:", "has an invalid port"),
                Arguments.of("[::1]:0", "has an invalid port"),
                Arguments.of("[fe80::1%eth0]", "must not name an IPv6 zone"),
                Arguments.of("[fd00::/8]", "has its prefix length inside the brackets"),
                Arguments.of("[fd00::]/129", "has an invalid prefix length"),
                Arguments.of("[fd00::1]/8", "has address bits set beyond its prefix length"),
                Arguments.of("[]", "is not an IPv6 address"),
                Arguments.of("[::1::2]", "is not an IPv6 address"),
                Arguments.of("[1:::2]", "is not an IPv6 address"),
                Arguments.of("[1:2:3:4:5:6:7:8:9]", "is not an IPv6 address"),
                Arguments.of("[1:2:3:4:5:6:7]", "is not an IPv6 address"),
                Arguments.of("[1:2:3:4:5:6:7::8]", "is not an IPv6 address"),
                Arguments.of("[12345::]", "is not an IPv6 address"),
                Arguments.of("[::g]", "is not an IPv6 address"),
                Arguments.of("[:1::]", "is not an IPv6 address"),
                Arguments.of("[::ffff:10.0.0.256]", "is not an IPv6 address"),
                Arguments.of("[example.com]", "is not an IPv6 address"));
    }

    /** Entries that are addresses, refused where IP literals are not allowed. */
    static Stream<String> ipLiterals() {
        return Stream.of(
                "10.0.0.1",
                "10.0.0.1:443",
                "10.0.0.1.",
                "10.0.0.0/8",
                "[::1]",
                "[::1]:443",
                "[fd00::]/8",
                // malformed too, but recognisably an address: the operator's switch is the answer
                "10.0.0.256",
                "[::g]");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("names")
    void hostNamesAndSubdomainPatternsAreReadWithoutIpLiterals(
            String text, Kind kind, String canonical) {
        EgressRule rule = EgressEntries.parse(text, FIELD, false);
        assertThat(rule.kind()).isEqualTo(kind);
        assertThat(rule.text()).isEqualTo(canonical);
        assertThat(EgressEntries.parse(rule.text(), FIELD, false)).isEqualTo(rule);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("addresses")
    void addressesAndBlocksAreReadInTheirCanonicalFormWhereAllowed(
            String text, Kind kind, String canonical) {
        EgressRule rule = EgressEntries.parse(text, FIELD, true);
        assertThat(rule.kind()).isEqualTo(kind);
        assertThat(rule.text()).isEqualTo(canonical);
        assertThat(EgressEntries.parse(rule.text(), FIELD, true)).isEqualTo(rule);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("refused")
    void malformedEntriesAreRefusedNamingTheField(String text, String problem) {
        assertRefused(text, true, problem);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("ipLiterals")
    void ipLiteralsAreRefusedUnlessTheOperatorAllowsThem(String text) {
        assertRefused(text, false, "is an IP literal; IP literals are not allowed here");
        assertThatThrownBy(() -> EgressEntries.parse(text, FIELD, false))
                .hasMessageContaining("(agentbox.egress.allow-ip-literals)");
    }

    @Test
    void aRuleHoldsTheLowerCaseNameWithoutTheWildcardAndItsPort() {
        assertThat(EgressEntries.parse("*.NpmJS.org:8443", FIELD, false))
                .isEqualTo(new EgressRule(Kind.SUBDOMAINS, "npmjs.org", OptionalInt.of(8443)));
        assertThat(EgressEntries.parse("Api.Anthropic.com", FIELD, false))
                .isEqualTo(EgressRule.host("api.anthropic.com"));
        assertThat(EgressEntries.parse("[FD00::]/8", FIELD, true))
                .isEqualTo(new EgressRule(Kind.CIDR, "fd00::/8", OptionalInt.empty()));
    }

    @Test
    void theFieldNamedIsTheOneGiven() {
        assertThatThrownBy(
                        () -> EgressEntries.parse("*.com", "agentbox.egress.always-allow", false))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e ->
                                assertThat(e.extensions())
                                        .containsEntry("field", "agentbox.egress.always-allow"));
    }

    @Test
    void parsingAnEntryNeverReachesTheNetworkOrDns() {
        noClasses()
                .that()
                .haveFullyQualifiedName(EgressEntries.class.getName())
                .should()
                .dependOnClassesThat()
                .resideInAPackage("java.net..")
                .check(new ClassFileImporter().importClasses(EgressEntries.class));
    }

    private static void assertRefused(String text, boolean ipLiteralsAllowed, String problem) {
        assertThatThrownBy(() -> EgressEntries.parse(text, FIELD, ipLiteralsAllowed))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.status()).isEqualTo(400);
                            assertThat(e.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
                            assertThat(e.detail()).startsWith(FIELD + " " + problem);
                            assertThat(e.extensions())
                                    .containsExactlyEntriesOf(java.util.Map.of("field", FIELD));
                        });
    }

    /** A valid name of exactly {@code length} characters: labels of 63 and a short last one. */
    private static String longName(int length) {
        StringBuilder s = new StringBuilder();
        while (length - s.length() > 64) {
            s.append("a".repeat(63)).append('.');
        }
        int rest = length - s.length();
        return s.append("b".repeat(rest)).toString();
    }
}
