package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.rules.RulesException;
import dev.sluice.store.CounterKeys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The limiter service's limits file: read by the rules file's reader, with its errors. */
class LimitsFileTest {

    private static final String EXAMPLE = """
            {
              "limits": {
                "partner-api": { "permits": 10, "period": "1m" },
                "github": { "permits": 5000, "period": "1h", "perKey": true },
                "reports": { "algorithm": "sliding_window_log",
                             "limits": [{ "permits": 2, "period": "1s" }, { "permits": 100, "period": "1d", "name": "daily" }] }
              }
            }
            """;

    @Test
    void parse_example_readsEveryIdInFileOrder() {
        LimitsFile file = LimitsFile.parse("limits.json", EXAMPLE);

        assertThat(file.entries()).extracting(LimitsFile.Entry::id).containsExactly("partner-api", "github", "reports");
        LimitsFile.Entry partner = file.find("partner-api").orElseThrow();
        assertThat(partner.policy().orElseThrow().algorithm()).isEqualTo(Algorithm.STEPPED_SLIDING_WINDOW);
        assertThat(partner.policy().orElseThrow().limits()).containsExactly(Limit.of(10, Duration.ofMinutes(1))
                .named("partner-api:10/1m"));
        assertThat(partner.perKey()).isFalse();
        assertThat(file.find("github").orElseThrow().perKey()).isTrue();
        LimitsFile.Entry reports = file.find("reports").orElseThrow();
        assertThat(reports.policy().orElseThrow().algorithm()).isEqualTo(Algorithm.SLIDING_WINDOW_LOG);
        assertThat(reports.policy().orElseThrow().limits()).extracting(Limit::name).containsExactly("reports:2/1s", "daily");
        assertThat(file.find("other")).isEmpty();
    }

    @Test
    void counterKey_perId_isApartFromRuleKeysAndChangesWithTheLimits() {
        LimitsFile.Entry before = LimitsFile.parse("a.json", "{\"limits\": {\"x\": {\"permits\": 1, \"period\": \"1s\"}}}")
                .find("x").orElseThrow();
        LimitsFile.Entry after = LimitsFile.parse("a.json", "{\"limits\": {\"x\": {\"permits\": 2, \"period\": \"1s\"}}}")
                .find("x").orElseThrow();

        assertThat(before.counterKey("acct|1")).startsWith("limits/x@").endsWith("|acct%7c1");
        assertThat(CounterKeys.idOf(before.counterKey(""))).as("never taken for a rule's counter").isEmpty();
        assertThat(after.counterKey("a")).isNotEqualTo(before.counterKey("a"));
        assertThat(before.counterKey("k".repeat(1000))).hasSizeLessThan(200);
    }

    @Test
    void parse_concurrencyEntry_readsItAsTheRulesFileDoes() {
        LimitsFile file = LimitsFile.parse("limits.json", """
                {"limits": {"exports": {"concurrency": 4, "maxHold": "10m", "perKey": true},
                            "both": {"permits": 10, "period": "1m", "concurrency": 2}}}""");

        LimitsFile.Entry exports = file.find("exports").orElseThrow();
        assertThat(exports.concurrency()).contains(ConcurrencyLimit.of(4, Duration.ofMinutes(10))
                .named("exports:4 concurrent"));
        assertThat(exports.policy()).isEmpty();
        assertThat(exports.perKey()).isTrue();
        LimitsFile.Entry both = file.find("both").orElseThrow();
        assertThat(both.concurrency()).contains(ConcurrencyLimit.of(2).named("both:2 concurrent"));
        assertThat(both.policy()).isPresent();
    }

    @Test
    void permitKey_concurrencyEntry_isApartFromItsCounterKeyAndRuleKeys() {
        LimitsFile.Entry both = LimitsFile.parse("a.json", """
                {"limits": {"x": {"permits": 1, "period": "1s", "concurrency": 2}}}""").find("x").orElseThrow();

        assertThat(both.permitKey("acct")).startsWith("limits/x@").endsWith("|acct")
                .isNotEqualTo(both.counterKey("acct"));
        assertThat(CounterKeys.idOf(both.permitKey(""))).as("never taken for a rule's counter").isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            {"limits": {"a": {"permits": 10, "period": "a minute"}}}                  | 1:44: $.limits.a.period: expected a duration such as "10s", "5m", "1h" or "PT1M", got "a minute"
            {"limits": {"a": {"permits": 0, "period": "1s"}}}                         | 1:30: $.limits.a.permits: expected an integer between 1 and 4611686018427387903, got 0
            {"limits": {"a": {"permits": 1, "period": "1s", "burst": 2}}}             | 1:58: $.limits.a.burst: unknown field "burst". Expected one of limits, algorithm, perKey, concurrency, maxHold, maxActual, permits, period, capacity, unit
            {"limits": {}}                                                            | 1:12: $.limits: expected an object of at least one limit by id, such as {"partner-api": {"permits": 10, "period": "1m"}}, got an object
            {"limits": {"a": {"perKey": "yes", "permits": 1, "period": "1s"}}}        | 1:29: $.limits.a.perKey: expected true or false, got "yes"
            {"limits": {"a": {"algorithm": "fast", "permits": 1, "period": "1s"}}}    | 1:32: $.limits.a.algorithm: expected one of "token_bucket", "leaky_bucket", "fixed_window", "sliding_window_log", "sliding_window_counter", "stepped_sliding_window", "gcra", got "fast"
            {"limits": {"a b": {"permits": 1, "period": "1s"}}}                       | 1:20: $.limits.a b: expected an id of 1 to 200 letters, digits or ._:#$- starting with a letter or digit, got "a b"
            {"limits": {"a": {"permits": 1, "period": "1s", "capacity": 3}}}          | 1:61: $.limits.a.capacity: the stepped sliding window has no separate capacity: limit Limit[a:1/1s: 1 per 1s, capacity 3] must have capacity equal to its permits (1)
            {"limits": {"a": {"permits": 1, "period": "1s", "limits": []}}}           | 1:30: $.limits.a.permits: give either "limits" or one limit inline ("permits", "period"), not both
            {"limits": {"a": {"maxHold": "1m", "concurrency": 0}}}                    | 1:51: $.limits.a.concurrency: expected an integer between 1 and 1000000, got 0
            {"limits": {"a": {"permits": 1, "period": "1s", "maxHold": "1m"}}}        | 1:60: $.limits.a.maxHold: "maxHold" bounds a concurrency limit's permits; this id has no "concurrency"
            {"limits": {"a": {"concurrency": 2, "algorithm": "gcra"}}}                | 1:50: $.limits.a.algorithm: "algorithm" is the rate limits' algorithm; this id has a concurrency limit only
            {"limits": {"a": {"algorithm": "gcra"}}}                                  | 1:18: $.limits.a: expected an object with "permits" and "period", "limits", or "concurrency", got an object
            {"limits": {"a": {"permits": 1, "period": "1s"}, "a": {"permits": 2, "period": "1s"}}} | 1:50: $.limits.a: duplicate field "a"
            {"limits": {"a": {"permits": 1, "period": "1s", "maxActual": 5}}}         | 1:62: $.limits.a.maxActual: "maxActual" bounds the actual cost settled in a unit; this id has no limits in a unit other than requests
            {"limits": {"a": {"permits": 100, "period": "1m", "unit": "tokens", "maxActual": 99}}} | 1:82: $.limits.a.maxActual: expected an integer between 100 and 4611686018427387903, got 99
            """)
    void parse_invalid_failsNamingFileLineColumnPathAndExpectation(String json, String expected) {
        RulesException error = catchThrowableOfType(RulesException.class, () -> LimitsFile.parse("limits.json", json));

        assertThat(error).hasMessage("limits.json:" + expected);
        assertThat(error.source()).contains("limits.json");
        assertThat(error.line()).isEqualTo(1);
        assertThat(error.jsonPath()).isPresent();
    }

    @Test
    void maxActual_unitEntry_isItsOwnOrTenTimesTheUnitsCapacity() {
        LimitsFile file = LimitsFile.parse("limits.json", """
                {"limits": {"llm": {"permits": 1000, "period": "1m", "unit": "tokens"},
                            "bounded": {"limits": [{"permits": 500, "period": "1m", "unit": "tokens"},
                                                   {"permits": 9000, "period": "1h", "unit": "tokens"}],
                                        "maxActual": 4000},
                            "requests": {"permits": 5, "period": "1s"}}}
                """);

        assertThat(file.find("llm").orElseThrow().maxActual()).isEqualTo(10_000);
        assertThat(file.find("bounded").orElseThrow().maxActual()).isEqualTo(4_000);
        assertThat(file.find("requests").orElseThrow().maxActual()).as("no unit to settle").isZero();
    }

    @Test
    void parse_notUtf8_locatesTheFirstBadByte() {
        byte[] content = "{\"limits\": {\"a\u00e9\": 1}}".getBytes(StandardCharsets.ISO_8859_1);
        RulesException error = catchThrowableOfType(RulesException.class, () -> LimitsFile.parse("limits.json", content));
        assertThat(error.getMessage()).startsWith("limits.json:1:15: $: not UTF-8 text: byte 0xE9");
    }
}
