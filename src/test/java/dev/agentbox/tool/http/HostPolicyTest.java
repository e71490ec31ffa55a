package dev.agentbox.tool.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which addresses an HTTP tool may reach; every case here resolves without any network. */
class HostPolicyTest {

    @Test
    void noHostIsAllowedWhenNoneIsListed() {
        assertThatThrownBy(() -> new HostPolicy(Set.of()).admit("127.0.0.1"))
                .isInstanceOf(ToolCallFailure.class)
                .hasMessageContaining("127.0.0.1 is not allowed");
    }

    @Test
    void theMetadataAddressIsRefusedUnlessListed() {
        assertThatThrownBy(() -> new HostPolicy(Set.of("example.com")).admit("169.254.169.254"))
                .isInstanceOf(ToolCallFailure.class)
                .hasMessageContaining("not allowed");
    }

    @Test
    void aListedNameThatResolvesToLoopbackIsRefusedUnlessTheAddressIsListedToo() throws Exception {
        assertThatThrownBy(() -> new HostPolicy(Set.of("localhost")).admit("localhost"))
                .isInstanceOf(ToolCallFailure.class)
                .hasMessageContaining("loopback, link-local or private");
        assertThat(
                        new HostPolicy(Set.of("localhost", "127.0.0.1", "::1"))
                                .admit("LOCALHOST")
                                .isLoopbackAddress())
                .isTrue();
    }

    @Test
    void aListedLinkLocalAddressLiteralIsAdmitted() throws Exception {
        assertThat(new HostPolicy(Set.of("169.254.1.1")).admit("169.254.1.1").getHostAddress())
                .isEqualTo("169.254.1.1");
    }

    @Test
    void privateSharedAndUniqueLocalRangesAreNotPublic() throws Exception {
        for (String a :
                new String[] {
                    "10.1.2.3",
                    "172.16.0.1",
                    "192.168.1.1",
                    "100.64.0.1",
                    "0.0.0.0",
                    "fd00::1",
                    "fe80::1",
                    "::1",
                    "224.0.0.1"
                }) {
            assertThat(HostPolicy.isPublic(java.net.InetAddress.getByName(a))).as(a).isFalse();
        }
        assertThat(HostPolicy.isPublic(java.net.InetAddress.getByName("93.184.216.34"))).isTrue();
        assertThat(HostPolicy.isPublic(java.net.InetAddress.getByName("2606:4700::1"))).isTrue();
    }
}
