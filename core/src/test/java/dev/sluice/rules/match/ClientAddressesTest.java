package dev.sluice.rules.match;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.rules.match.ClientAddresses.Header;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClientAddressesTest {

    private final ClientAddresses behindProxy =
            ClientAddresses.behindProxies(List.of("10.0.0.0/8", "2001:db8:ffff::/48"), Header.X_FORWARDED_FOR);
    private final ClientAddresses behindForwarded =
            ClientAddresses.behindProxies(List.of("10.0.0.0/8"), Header.FORWARDED);

    @Test
    void clientIp_noTrustedProxies_usesSocketAddress() {
        TestRequest request = TestRequest.get("/").from("203.0.113.5").header("X-Forwarded-For", "1.2.3.4");

        assertThat(ClientAddresses.direct().resolve(request)).isEqualTo("203.0.113.5");
    }

    @Test
    void clientIp_spoofedForwardedForFromUntrustedPeer_usesSocketAddress() {
        TestRequest request = TestRequest.get("/").from("203.0.113.5").header("X-Forwarded-For", "10.0.0.1");

        assertThat(behindProxy.resolve(request)).isEqualTo("203.0.113.5");
    }

    @Test
    void clientIp_fromTrustedProxy_takesRightMostUntrustedHop() {
        TestRequest request = TestRequest.get("/").from("10.0.0.2")
                .header("X-Forwarded-For", "6.6.6.6, 198.51.100.9, 10.0.0.7");

        assertThat(behindProxy.resolve(request)).isEqualTo("198.51.100.9");
    }

    @Test
    void clientIp_clientPrependsFakeHop_cannotChooseItsKey() {
        TestRequest honest = TestRequest.get("/").from("10.0.0.2").header("X-Forwarded-For", "198.51.100.9");
        TestRequest spoofing = TestRequest.get("/").from("10.0.0.2")
                .header("X-Forwarded-For", "1.1.1.1").header("X-Forwarded-For", "198.51.100.9");

        assertThat(behindProxy.resolve(spoofing)).isEqualTo(behindProxy.resolve(honest)).isEqualTo("198.51.100.9");
    }

    @Test
    void clientIp_allHopsTrusted_takesLeftMostTrustedHop() {
        TestRequest request = TestRequest.get("/").from("10.0.0.2").header("X-Forwarded-For", "10.1.1.1, 10.0.0.3");

        assertThat(behindProxy.resolve(request)).isEqualTo("10.1.1.1");
    }

    @Test
    void clientIp_trustedProxyWithoutHeader_usesSocketAddress() {
        assertThat(behindProxy.resolve(TestRequest.get("/").from("10.0.0.2"))).isEqualTo("10.0.0.2");
    }

    @Test
    void clientIp_ipv6AndMappedIpv4_areCanonical() {
        TestRequest ipv6 = TestRequest.get("/").from("2001:DB8:0:0:0:0:0:1");
        TestRequest mapped = TestRequest.get("/").from("::ffff:198.51.100.7");
        TestRequest bracketed = TestRequest.get("/").from("10.0.0.2").header("X-Forwarded-For", "[2001:db8::2]");

        assertThat(ClientAddresses.direct().resolve(ipv6)).isEqualTo("2001:db8::1");
        assertThat(ClientAddresses.direct().resolve(mapped)).isEqualTo("198.51.100.7");
        assertThat(behindProxy.resolve(bracketed)).isEqualTo("2001:db8::2");
    }

    @Test
    void clientIp_ipv6TrustedProxyCidr_isSkipped() {
        TestRequest request = TestRequest.get("/").from("2001:db8:ffff::1")
                .header("X-Forwarded-For", "2001:db8:1::5, 2001:db8:ffff:0:0:0:0:9");

        assertThat(behindProxy.resolve(request)).isEqualTo("2001:db8:1::5");
    }

    @Test
    void clientIp_forwardedHeader_readsForPairsRightToLeft() {
        TestRequest request = TestRequest.get("/").from("10.0.0.2")
                .header("Forwarded", "for=6.6.6.6, for=\"[2001:db8::7]:4711\";proto=https, for=10.0.0.9;by=10.0.0.2")
                .header("X-Forwarded-For", "7.7.7.7");

        assertThat(behindForwarded.resolve(request)).isEqualTo("2001:db8::7");
    }

    @Test
    void clientIp_forwardedConfigured_ignoresXForwardedFor() {
        TestRequest request = TestRequest.get("/").from("10.0.0.2").header("X-Forwarded-For", "7.7.7.7");

        assertThat(behindForwarded.resolve(request)).isEqualTo("10.0.0.2");
    }

    @Test
    void clientIp_garbageWhereClientShouldBe_fallsBackToNearestTrustedProxy() {
        for (String garbage : List.of("not-an-ip", "1.2.3.4\r\nX-Evil: 1", "evil.example", "999.1.1.1", "_hidden",
                "", "1.2.3.4.5", "01.2.3.4", "::ffff::1", "1:2:3:4:5:6:7:8:9")) {
            TestRequest request = TestRequest.get("/").from("10.0.0.2")
                    .header("X-Forwarded-For", garbage + ", 10.0.0.3");

            assertThat(behindProxy.resolve(request)).as(garbage).isEqualTo("10.0.0.3");
        }
    }

    @Test
    void clientIp_forwardedForEntryWithPort_isTheAddress() {
        for (String entry : List.of("198.51.100.7:51234", " 198.51.100.7:1 ", "[198.51.100.7]:443",
                "[::ffff:198.51.100.7]:80")) {
            TestRequest request = TestRequest.get("/").from("10.0.0.2")
                    .header("X-Forwarded-For", "6.6.6.6, " + entry + ", 10.0.0.3:8080");

            assertThat(behindProxy.resolve(request)).as(entry).isEqualTo("198.51.100.7");
        }
        TestRequest ipv6 = TestRequest.get("/").from("10.0.0.2").header("X-Forwarded-For", "[2001:DB8::1]:443");
        assertThat(behindProxy.resolve(ipv6)).isEqualTo("2001:db8::1");
    }

    @Test
    void clientIp_forwardedForEntryWithNoPortAfterItsColon_isGarbage() {
        for (String garbage : List.of("198.51.100.7:", "198.51.100.7:123456", "198.51.100.7:80x", "[2001:db8::1]x",
                "[2001:db8::1]:", "198.51.100.7:_", ":80")) {
            TestRequest request = TestRequest.get("/").from("10.0.0.2")
                    .header("X-Forwarded-For", garbage + ", 10.0.0.3");

            assertThat(behindProxy.resolve(request)).as(garbage).isEqualTo("10.0.0.3");
        }
    }

    @Test
    void key_ipv6Client_isItsNetworkOfThePrefix_ipv4ItsAddress() {
        TestRequest ipv6 = TestRequest.get("/").from("2001:db8:abcd:12ff:1:2:3:4");
        TestRequest ipv4 = TestRequest.get("/").from("198.51.100.7");

        assertThat(ClientAddresses.direct().ipv6Prefix()).isEqualTo(64);
        assertThat(key(ClientAddresses.direct(), ipv6)).isEqualTo("2001:db8:abcd:12ff::/64");
        assertThat(key(ClientAddresses.direct().withIpv6Prefix(48), ipv6)).isEqualTo("2001:db8:abcd::/48");
        assertThat(key(ClientAddresses.direct().withIpv6Prefix(61), ipv6)).isEqualTo("2001:db8:abcd:12f8::/61");
        assertThat(key(ClientAddresses.direct().withIpv6Prefix(128), ipv6)).isEqualTo("2001:db8:abcd:12ff:1:2:3:4");
        assertThat(key(ClientAddresses.direct().withIpv6Prefix(48), ipv4)).isEqualTo("198.51.100.7");
        assertThat(ClientAddresses.direct().resolve(ipv6)).as("the address itself")
                .isEqualTo("2001:db8:abcd:12ff:1:2:3:4");
    }

    private static String key(ClientAddresses addresses, TestRequest request) {
        return addresses.key(addresses.resolveBytes(request), request);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, 129})
    void withIpv6Prefix_noPrefixLength_isRefused(int bits) {
        assertThatThrownBy(() -> ClientAddresses.direct().withIpv6Prefix(bits))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ipv6Prefix: expected a prefix length from 1 to 128, got " + bits);
    }

    @Test
    void clientIp_tenThousandTrustedHops_isBoundedAndNeverCrashes() {
        String hops = String.join(",", java.util.Collections.nCopies(10_000, "10.0.0.1"));
        TestRequest request = TestRequest.get("/").from("10.0.0.2").header("X-Forwarded-For", "1.2.3.4," + hops);

        assertThat(behindProxy.resolve(request)).isEqualTo("10.0.0.1");
    }

    @Test
    void clientIp_megabyteValue_isGarbageNotAKey() {
        TestRequest request = TestRequest.get("/").from("10.0.0.2").header("X-Forwarded-For", "1".repeat(1 << 20));

        assertThat(behindProxy.resolve(request)).isEqualTo("10.0.0.2");
    }

    @Test
    void behindProxies_invalidEntry_namesIt() {
        assertThatThrownBy(() -> ClientAddresses.behindProxies(List.of("10.0.0.0/33"), Header.X_FORWARDED_FOR))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"10.0.0.0/33\"");
    }

    @Test
    void cidrSet_matchesPrefixesOfBothFamilies() {
        CidrSet set = CidrSet.parse(List.of("192.168.4.0/22", "2001:db8::/32", "::ffff:172.16.0.0/108"));

        assertThat(set.contains(IpAddresses.parse("192.168.7.255"))).isTrue();
        assertThat(set.contains(IpAddresses.parse("192.168.8.0"))).isFalse();
        assertThat(set.contains(IpAddresses.parse("2001:db8:abcd::1"))).isTrue();
        assertThat(set.contains(IpAddresses.parse("2001:db9::1"))).isFalse();
        assertThat(set.contains(IpAddresses.parse("172.16.9.9"))).isTrue();
    }

    @Test
    void format_ipv6_isRfc5952() {
        assertThat(IpAddresses.canonical("2001:0db8:0000:0000:0001:0000:0000:0001")).isEqualTo("2001:db8::1:0:0:1");
        assertThat(IpAddresses.canonical("::")).isEqualTo("::");
        assertThat(IpAddresses.canonical("::1")).isEqualTo("::1");
        assertThat(IpAddresses.canonical("fe80::1%eth0")).isEqualTo("fe80::1");
        assertThat(IpAddresses.canonical("1:0:2:0:3:0:4:0")).isEqualTo("1:0:2:0:3:0:4:0");
    }
}
