package dev.sluice.rules.match;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.engine.RuleSet;
import dev.sluice.rules.Rule;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class HostPatternTest {

    static Stream<HostMatchCases.Case> cases() {
        return HostMatchCases.CASES.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void matches_requestHost_byCaseInsensitiveHostAndTheDocumentedPorts(HostMatchCases.Case c) {
        assertThat(HostPattern.parse(c.pattern()).matches(c.requestHost())).isEqualTo(c.matches());
    }

    /**
     * Beside a rule of the request's own host (whatever its port), so that the request names a host rule: a rule's
     * host then picks the rule exactly as the pattern matches (a request naming no host rule meets every one).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void match_serverRuleWithHost_agreesWithThePattern(HostMatchCases.Case c) {
        Policy policy = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(1, Duration.ofMinutes(1)));
        RuleSet rules = RuleSet.of(List.of(Rule.builder("r").paths("/a").host(c.pattern()).policy(policy).build(),
                Rule.builder("named").paths("/a").host(c.requestHostOnAnyPort()).policy(policy).build()),
                ClientAddresses.direct());

        assertThat(rules.match(TestRequest.get("/a").host(c.requestHost()))).extracting(Rule::id)
                .isEqualTo(c.matches() ? List.of("r", "named") : List.of("named"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"API.Example.com.:0443", "*.EXAMPLE.com", "[2001:DB8::1]:8080"})
    void parse_spellingsOfOneHost_areEqualAndShownNormalized(String spelling) {
        HostPattern pattern = HostPattern.parse(spelling);

        assertThat(pattern).isEqualTo(HostPattern.parse(pattern.toString()));
        assertThat(pattern.toString()).isLowerCase().doesNotContain(".:");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "api example.com", "api.example.com:", "api.example.com:65536", "*.", "https://a.b",
        "a.b/c", "*.[::1]", "[::1", "."})
    void parse_noHost_isAnErrorSayingWhatAHostLooksLike(String text) {
        assertThatThrownBy(() -> HostPattern.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("host: expected a host name such as \"api.example.com\" or \"*.example.com\", got \""
                        + text + "\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"api.example.com", "*.example.com"})
    void matches_unknownRequestHost_matchesNothing(String pattern) {
        assertThat(HostPattern.parse(pattern).matches(null)).isFalse();
        assertThat(HostPattern.parse(pattern).matches("")).isFalse();
    }
}
