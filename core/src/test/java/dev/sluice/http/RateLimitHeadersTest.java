package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Transition;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RateLimitHeadersTest {

    private static final Limit BURST = Limit.of(10, Duration.ofSeconds(1)).named("burst");
    private static final Limit DAILY = Limit.of(1000, Duration.ofDays(1)).named("daily");
    /** Next permit in 0.1 s, full again in 0.6 s. */
    private static final Decision BURST_OK = Decision.granted(10, "burst").remaining(4).nextPermitIn(100_000_000L)
            .resetIn(600_000_000L).build();
    /** Next permit in 2.5 s, full again in 18 s. */
    private static final Decision DAILY_OK = Decision.granted(1000, "daily").remaining(42).nextPermitIn(2_500_000_000L)
            .resetIn(18_000_000_000L).build();
    private static final Decision DAILY_REJECTED =
            Decision.rejected(1000, "daily", 1_000_000L).nextPermitIn(1_000_000L).resetIn(17_500_000_000L).build();

    private static Map<String, String> headers(List<Decision> decisions, Decision verdict, HeaderStyle style) {
        Map<String, String> headers = new LinkedHashMap<>();
        RateLimitHeaders.write(List.of(BURST, DAILY), decisions, verdict, style, headers::put);
        return headers;
    }

    @Test
    void write_bothStyles_emitsDraftAndLegacyFields() {
        assertThat(headers(List.of(BURST_OK, DAILY_OK), BURST_OK, HeaderStyle.BOTH)).containsExactly(
                Map.entry("RateLimit-Policy", "\"burst\";q=10;w=1, \"daily\";q=1000;w=86400"),
                Map.entry("RateLimit", "\"burst\";r=4;t=1, \"daily\";r=42;t=3"),
                Map.entry("X-RateLimit-Limit", "10"),
                Map.entry("X-RateLimit-Remaining", "4"),
                Map.entry("X-RateLimit-Reset", "1"));
    }

    @Test
    void write_storeUnavailable_tellsOfNoPermitsNobodyCounted() {
        Decision unavailable = Decision.granted(10, "burst").remaining(9).storeUnavailable().build();

        assertThat(headers(List.of(unavailable, DAILY_OK), unavailable, HeaderStyle.BOTH)).containsExactly(
                Map.entry("RateLimit-Policy", "\"burst\";q=10;w=1, \"daily\";q=1000;w=86400"),
                Map.entry("RateLimit", "\"daily\";r=42;t=3"));
        assertThat(headers(List.of(unavailable), unavailable, HeaderStyle.BOTH)).containsOnlyKeys("RateLimit-Policy");
    }

    @Test
    void write_rejection_addsRetryAfterRoundedUpNeverZero() {
        Map<String, String> headers = headers(List.of(DAILY_REJECTED), DAILY_REJECTED, HeaderStyle.LEGACY);
        assertThat(headers).containsEntry("Retry-After", "1").containsEntry("X-RateLimit-Reset", "18")
                .doesNotContainKey("RateLimit");
    }

    @Test
    void write_threePerMinuteAllTaken_tSaysTheNextPermitAndResetTheFullBucket() {
        Limit perMinute = Limit.of(3, Duration.ofMinutes(1)).named("per-ip");
        Policy policy = Policy.of(Algorithm.TOKEN_BUCKET, perMinute);
        long[][] state = policy.apply(null, 0, 3, 0).state();
        Decision rejected = policy.apply(state, 0, 1, 0).decision();
        Map<String, String> headers = new LinkedHashMap<>();

        RateLimitHeaders.write(List.of(perMinute), List.of(rejected), rejected, HeaderStyle.BOTH, headers::put);

        assertThat(headers).containsEntry("RateLimit", "\"per-ip\";r=0;t=20").containsEntry("Retry-After", "20")
                .containsEntry("X-RateLimit-Reset", "60");
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void write_anyRejection_retryAfterNeverEarlierThanTheTOfAnyRejectingLimit(Algorithm algorithm) {
        // Two limits, each of its own rule: a rejection by either must not point earlier than either's t.
        Limit fast = Limit.of(4, Duration.ofSeconds(10)).named("fast");
        Limit slow = Limit.of(6, Duration.ofMinutes(1)).named("slow");
        Policy fastPolicy = Policy.of(algorithm, fast);
        Policy slowPolicy = Policy.of(algorithm, slow);
        Random random = new Random(algorithm.id());
        long[][] fastState = null;
        long[][] slowState = null;
        long now = 0;
        int rejections = 0;
        for (int i = 0; i < 400; i++) {
            now += random.nextInt(1_500_000_000);
            long cost = 1 + random.nextInt(3);
            Transition fastStep = fastPolicy.apply(fastState, now, cost, Long.MAX_VALUE);
            Transition slowStep = slowPolicy.apply(slowState, now, cost, Long.MAX_VALUE);
            Decision verdict = Decision.mostRestrictive(fastStep.decision(), slowStep.decision());
            if (verdict.allowed()) {
                fastState = fastStep.state();
                slowState = slowStep.state();
                continue;
            }
            rejections++;
            Map<String, String> headers = new LinkedHashMap<>();
            RateLimitHeaders.write(List.of(fast, slow), List.of(fastStep.decision(), slowStep.decision()), verdict,
                    HeaderStyle.BOTH, headers::put);
            long retryAfter = Long.parseLong(headers.get("Retry-After"));
            for (Decision rejection : List.of(fastStep.decision(), slowStep.decision())) {
                if (!rejection.allowed()) {
                    long t = Long.parseLong(headers.get("RateLimit").replaceAll(
                            ".*\"" + rejection.limitName() + "\";r=\\d+;t=(\\d+).*", "$1"));
                    assertThat(retryAfter).as("%s at %d: %s", rejection.limitName(), now, headers)
                            .isGreaterThanOrEqualTo(t);
                }
            }
        }
        assertThat(rejections).isPositive();
    }

    @Test
    void write_draftOnlyOrNone_omitsTheOtherFields() {
        assertThat(headers(List.of(BURST_OK), BURST_OK, HeaderStyle.DRAFT)).containsOnlyKeys("RateLimit-Policy",
                "RateLimit");
        assertThat(headers(List.of(BURST_OK), BURST_OK, HeaderStyle.NONE)).isEmpty();
        assertThat(headers(List.of(DAILY_REJECTED), DAILY_REJECTED, HeaderStyle.NONE)).containsOnlyKeys("Retry-After");
    }

    @Test
    void write_rejectionThatCanNeverSucceed_hasNoRetryAfter() {
        Decision never = Decision.rejected(10, "burst", Decision.NEVER).remaining(10).build();
        assertThat(headers(List.of(never), never, HeaderStyle.BOTH)).doesNotContainKey("Retry-After");
    }

    @Test
    void policyField_hostileName_isEscapedAndCannotBreakTheHeader() {
        Limit hostile = Limit.of(1, Duration.ofSeconds(1)).named("a\"b\\c\r\nX-Evil: 1é");
        assertThat(RateLimitHeaders.policyField(List.of(hostile), null))
                .isEqualTo("\"a\\\"b\\\\c??X-Evil: 1?\";q=1;w=1");
    }

    @Test
    void policyField_subSecondWindow_roundsUpToOneSecond() {
        assertThat(RateLimitHeaders.policyField(List.of(Limit.of(5, Duration.ofMillis(100))), null))
                .isEqualTo("\"5/100ms\";q=5;w=1");
    }

    @Test
    void headerStyle_parse_acceptsAnyCaseAndNamesTheExpectedForms() {
        assertThat(HeaderStyle.parse(" Legacy ")).isEqualTo(HeaderStyle.LEGACY);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> HeaderStyle.parse("x-only"))
                .hasMessage("expected one of both, draft, legacy, none; got 'x-only'");
    }
}
