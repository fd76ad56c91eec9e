package dev.sluice.rules.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.annotation.RateLimitExempt;
import dev.sluice.annotation.RateLimited;
import dev.sluice.annotation.Sync;
import dev.sluice.engine.RuleSet;
import dev.sluice.internal.DurationText;
import dev.sluice.rules.AnnotationRules;
import dev.sluice.rules.KeySpec;
import dev.sluice.rules.Mode;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleResponse;
import dev.sluice.rules.RulesException;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.rules.match.HostPattern;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RulesFileTest {

    static Path resource(String name) {
        try {
            return Path.of(RulesFileTest.class.getResource("/rules/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Each invalid file with its expected message (without the leading file name), from expected-messages.txt. */
    static Stream<Arguments> invalidFiles() throws IOException {
        Map<String, String> expected = new LinkedHashMap<>();
        for (String line : Files.readAllLines(resource("invalid/expected-messages.txt"))) {
            int separator = line.indexOf(" = ");
            expected.put(line.substring(0, separator), line.substring(separator + 3));
        }
        try (Stream<Path> files = Files.list(resource("invalid"))) {
            List<String> names = files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".json")).sorted()
                    .toList();
            assertThat(names).hasSizeGreaterThanOrEqualTo(20).containsExactlyElementsOf(expected.keySet());
        }
        return expected.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidFiles")
    void read_invalidFile_failsNamingFileLineColumnPathAndExpectation(String file, String expected) {
        RulesException error = catchThrowableOfType(RulesException.class,
                () -> RuleSet.of(RulesFile.read(resource("invalid/" + file))));

        assertThat(error).hasMessage(file + ":" + expected);
        assertThat(error.source()).contains(file);
        assertThat(error.getMessage()).startsWith(file + ":" + error.line() + ":" + error.column() + ": "
                + error.jsonPath().orElseThrow() + ": ");
        assertThat(error.line()).isPositive();
        assertThat(error.column()).isPositive();
    }

    @Test
    void read_periodInWords_locatesTheValue() {
        RulesException error = org.junit.jupiter.api.Assertions.assertThrows(RulesException.class,
                () -> RulesFile.read(resource("invalid/01-period-words.json")));

        assertThat(error.source()).contains("01-period-words.json");
        assertThat(error.line()).isEqualTo(6);
        assertThat(error.column()).isEqualTo(44);
        assertThat(error.jsonPath()).contains("$.rules[0].limits[0].period");
        assertThat(error.getMessage()).endsWith("expected a duration such as \"10s\", \"5m\", \"1h\" or \"PT1M\","
                + " got \"5 minutes\"");
    }

    @Test
    void read_example_parsesEveryField() {
        RulesFile file = RulesFile.read(resource("valid/example.json"));

        assertThat(file.clientAddresses().trustedProxies()).containsExactly("10.0.0.0/8", "fd00::/8");
        assertThat(file.rules()).extracting(Rule::id)
                .containsExactly("login", "api", "user-orders", "upload", "search", "reindex");
        Rule login = file.rules().get(0);
        assertThat(login.match().methods()).containsExactly("POST");
        assertThat(login.requestLimits().orElseThrow().defaults().algorithm()).isEqualTo(Algorithm.SLIDING_WINDOW_LOG);
        assertThat(login.requestLimits().orElseThrow().defaults().limits()).extracting(Limit::name)
                .containsExactly("login-per-minute", "login:50/1d");
        assertThat(login.response()).contains(new RuleResponse(429, "Too many login attempts; try again later."));
        assertThat(login.key().exemptAddresses()).containsExactly("192.0.2.0/24", "2001:db8::/32");
        Rule api = file.rules().get(1);
        assertThat(api.match().host()).contains(HostPattern.parse("api.example.com"));
        assertThat(api.key().spec()).isEqualTo(KeySpec.of(KeySpec.Kind.HEADER, "X-Api-Key"));
        assertThat(api.key().fallbackKey()).contains("anonymous");
        assertThat(api.requestLimits().orElseThrow().tiers().get("premium").limits().get(0).capacity()).isEqualTo(2000);
        assertThat(api.key().exemptKeys()).containsExactly("internal-monitoring");
        assertThat(api.distribution().lease()).isTrue();
        assertThat(api.requestLimits().orElseThrow().defaults().leased()).isTrue();
        assertThat(api.requestLimits().orElseThrow().tiers().get("premium").leased()).isTrue();
        assertThat(login.distribution().lease()).isFalse();
        assertThat(login.requestLimits().orElseThrow().defaults().leased()).isFalse();
        Rule orders = file.rules().get(2);
        assertThat(orders.key().spec().parts()).hasSize(2);
        assertThat(orders.cost()).isEqualTo(2);
        assertThat(orders.mode()).isEqualTo(Mode.SHADOW);
        assertThat(orders.requestLimits().orElseThrow().defaults().limits().get(0).period())
                .isEqualTo(Duration.ofMinutes(1));
        assertThat(file.rules().get(3).maxDelay()).isEqualTo(Duration.ofMillis(500));
        assertThat(file.rules().get(4).match().paths()).isEmpty();
    }

    @Test
    void parse_clientAddressIpv6Prefix_keysIpv6ClientsByIt() {
        String rules = """
                {"clientAddress": {%s}, "rules": [{"id": "a", "match": {"paths": ["/a"]},
                  "limits": [{"permits": 1, "period": "1s"}]}]}""";

        assertThat(RulesFile.parse("r.json", rules.formatted("\"ipv6Prefix\": 56")).clientAddresses())
                .isEqualTo(ClientAddresses.direct().withIpv6Prefix(56));
        assertThat(RulesFile.parse("r.json", rules.formatted("")).clientAddresses())
                .isEqualTo(ClientAddresses.direct());
        assertThat(RulesFile.parse("r.json", rules.formatted("\"trustedProxies\": [\"10.0.0.1\"]"))
                .clientAddresses().ipv6Prefix()).isEqualTo(ClientAddresses.DEFAULT_IPV6_PREFIX);
        assertThatThrownBy(() -> RulesFile.parse("r.json", rules.formatted("\"ipv6Prefix\": 129")))
                .isInstanceOf(RulesException.class)
                .hasMessage("r.json:1:34: $.clientAddress.ipv6Prefix: expected an integer between 1 and 128, got 129");
    }

    @Test
    void parse_syncSynchronised_synchronisesEveryPolicyAndExactStaysTheDefault() {
        RulesFile file = RulesFile.parse("sync.json", """
                {"rules": [
                  {"id": "cold", "match": {"paths": ["/**"]}, "key": {"type": "header", "name": "X-Api-Key"},
                   "algorithm": "sliding_window_counter", "limits": [{"permits": 100, "period": "1s"}],
                   "tiers": {"key": {"type": "header", "name": "X-Plan"},
                             "levels": {"gold": [{"permits": 1000, "period": "1s"}]}},
                   "sync": "synchronised", "syncBudget": 3},
                  {"id": "plain", "match": {"paths": ["/**"]}, "limits": [{"permits": 1, "period": "1s"}],
                   "sync": "exact"},
                  {"id": "unsaid", "match": {"paths": ["/**"]}, "limits": [{"permits": 1, "period": "1s"}]}
                ]}""");

        Rule cold = file.rules().get(0);
        assertThat(cold.distribution().sync()).isEqualTo(Sync.SYNCHRONISED);
        assertThat(cold.requestLimits().orElseThrow().defaults().synced()).isTrue();
        assertThat(cold.requestLimits().orElseThrow().tiers().get("gold").synced()).isTrue();
        assertThat(cold.requestLimits().orElseThrow().defaults().syncBudget()).hasValue(3);
        assertThat(cold.requestLimits().orElseThrow().tiers().get("gold").syncBudget()).hasValue(3);
        assertThat(file.rules().get(1).distribution().sync()).isEqualTo(Sync.EXACT);
        assertThat(file.rules().get(1).requestLimits().orElseThrow().defaults().synced()).isFalse();
        assertThat(file.rules().get(2).distribution().sync()).isEqualTo(Sync.EXACT);
    }

    /** The annotated resource of the README (Rules, Annotations), without its JAX-RS annotations. */
    @RateLimited(id = "search-resource", permits = 600, period = "1m")
    public static class SearchResource {
        @RateLimited(id = "search", permits = 10, period = "1s", key = {"principal", "header:X-Tenant"})
        @RateLimited(id = "search", permits = 1000, period = "1d", key = {"principal", "header:X-Tenant"})
        public String search(String q) {
            return q;
        }

        @RateLimited(permits = 1, period = "1h", algorithm = Algorithm.GCRA, shadow = true)
        public String export() {
            return "";
        }

        @RateLimited(rule = "reindex")
        public void reindex() {
        }

        @RateLimitExempt
        public String health() {
            return "";
        }

        public String suggest() {
            return "";
        }
    }

    @Test
    void combine_documentedExampleWithItsAnnotations_mergesBySharedIds() throws NoSuchMethodException {
        RuleSet rules = RuleSet.combine(RulesFile.read(resource("valid/example.json")),
                AnnotationRules.forClass(SearchResource.class));

        assertThat(rules.rules()).extracting(Rule::id).containsExactly("login", "api", "user-orders", "upload",
                "search", "reindex", SearchResource.class.getName() + "#export", "search-resource");
        Rule search = rules.rule("search").orElseThrow();
        assertThat(search.key().spec()).isEqualTo(KeySpec.of(KeySpec.Kind.QUERY, "tenant"));
        assertThat(search.requestLimits().orElseThrow().defaults().limits()).extracting(Limit::name)
                .containsExactly("search:20/10s");
        assertThat(search.match().resourceMethods())
                .containsExactly(SearchResource.class.getMethod("search", String.class));
        assertThat(rules.rule("search-resource").orElseThrow().match().resourceMethods())
                .containsExactly(SearchResource.class.getMethod("suggest"));
    }

    @Test
    void parse_durations_acceptShortAndIsoForms() {
        assertThat(DurationText.parse("250ms")).contains(Duration.ofMillis(250));
        assertThat(DurationText.parse("10m")).contains(Duration.ofMinutes(10));
        assertThat(DurationText.parse("1d")).contains(Duration.ofDays(1));
        assertThat(DurationText.parse("PT1M")).contains(Duration.ofMinutes(1));
        assertThat(DurationText.parse("P1D")).contains(Duration.ofDays(1));
        assertThat(DurationText.parse("1 m")).isEmpty();
        assertThat(DurationText.parse("1w")).isEmpty();
        assertThat(DurationText.parse("")).isEmpty();
    }

    @Test
    void read_missingFile_isARulesException() {
        assertThatThrownBy(() -> RulesFile.read(Path.of("does-not-exist.json")))
                .isInstanceOf(RulesException.class).hasMessageStartingWith("does-not-exist.json: cannot read");
    }
}
