package dev.sluice.jersey.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.engine.RuleSet;
import dev.sluice.rules.Rule;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.rules.match.HostMatchCases;
import dev.sluice.rules.match.TestRequest;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ClientRuleTest {

    private static final Policy POLICY = Policy.of(Algorithm.GCRA, Limit.of(10, Duration.ofSeconds(1)));

    static Stream<HostMatchCases.Case> cases() {
        return HostMatchCases.CASES.stream();
    }

    /**
     * One table for both: a host pattern covers the same requests in a client rule as in a server rule (beside a rule
     * of the request's host, so that a server rule's host picks it as the pattern matches).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void matches_host_agreesWithServerRulesOnPortsAndCase(HostMatchCases.Case c) {
        ClientRule client = ClientRule.builder("client").host(c.pattern()).policy(POLICY).build();
        RuleSet server = RuleSet.of(List.of(Rule.builder("server").paths("/**").host(c.pattern()).policy(POLICY)
                .build(), Rule.builder("named").paths("/**").host(c.requestHostOnAnyPort()).policy(POLICY).build()),
                ClientAddresses.direct());

        assertThat(client.matches(c.requestHost(), "/x")).isEqualTo(c.matches());
        assertThat(server.match(TestRequest.get("/x").host(c.requestHost()))).extracting(Rule::id)
                .isEqualTo(c.matches() ? List.of("server", "named") : List.of("named"));
    }

    @Test
    void matches_noHost_coversEveryHostOnItsPaths() {
        ClientRule rule = ClientRule.builder("any").path("/search/**").policy(POLICY).build();

        assertThat(rule.matches("api.example.com:8443", "/search/code")).isTrue();
        assertThat(rule.matches("api.example.com", "/users")).isFalse();
    }

    @Test
    void builder_hostThatIsNone_isAnError() {
        assertThatThrownBy(() -> ClientRule.builder("bad").host("https://api.example.com"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected a host name");
    }
}
