package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Decision;
import dev.sluice.Limit;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class LimitOverrideTest {

    private static final Instant NOW = Instant.parse("2026-11-27T00:00:00Z");

    private static LimitOverride.Builder blockedKey() {
        return LimitOverride.forKey("login", "account-42").blocked().lasting(Duration.ofHours(2)).reason("abuse")
                .setBy("alice");
    }

    @Test
    void build_complete_keepsEverythingAndEndsAfterItsDuration() {
        LimitOverride override = blockedKey().build(NOW);

        assertThat(override.target()).isEqualTo(LimitOverride.Target.key("login", "account-42"));
        assertThat(override.kind()).isEqualTo(LimitOverride.Kind.BLOCKED);
        assertThat(override.setAt()).isEqualTo(NOW);
        assertThat(override.expiresAt()).isEqualTo(NOW.plus(Duration.ofHours(2)));
        assertThat(override.reason()).isEqualTo("abuse");
        assertThat(override.setBy()).isEqualTo("alice");
        assertThat(override.toString()).doesNotContain("account-42");
        assertThat(override.target().toString()).startsWith("login key #").doesNotContain("account-42");
    }

    @Test
    void build_withoutReason_throwsNamingTheReason() {
        assertThatThrownBy(() -> blockedKey().reason(" ").build(NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reason is required");
    }

    @Test
    void build_withoutSetter_throwsNamingTheSetter() {
        assertThatThrownBy(() -> blockedKey().setBy("").build(NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("setBy is required");
    }

    @Test
    void build_reasonOfSeveralLines_throws() {
        assertThatThrownBy(() -> blockedKey().reason("a\nforged log line").build(NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("control characters");
    }

    @Test
    void build_expiryInThePast_throwsNamingNow() {
        assertThatThrownBy(() -> blockedKey().until(NOW.minusSeconds(1)).build(NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must end after now (" + NOW);
    }

    @Test
    void build_longerThanTheMaximum_throwsNamingTheMaximum() {
        assertThatThrownBy(() -> blockedKey().until(NOW.plus(Duration.ofDays(31))).build(NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 30 days");
        assertThatThrownBy(() -> blockedKey().lasting(Duration.ofDays(31)).build(NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 30 days");
    }

    @Test
    void build_withoutExpiry_throws() {
        assertThatThrownBy(() -> LimitOverride.forKey("login", "k").blocked().reason("r").setBy("s").build(NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("say when it ends");
    }

    @Test
    void build_withoutAction_throws() {
        assertThatThrownBy(() -> LimitOverride.forKey("login", "k").lasting(Duration.ofMinutes(1)).reason("r")
                .setBy("s").build(NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("say what it does");
    }

    @Test
    void build_wholeRuleBlocked_throws() {
        assertThatThrownBy(() -> LimitOverride.forRule("login").blocked().lasting(Duration.ofMinutes(1)).reason("r")
                .setBy("s").build(NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only a key can be blocked");
    }

    @Test
    void decision_blocked_rejectsUntilTheOverrideEnds() {
        LimitOverride override = blockedKey().build(NOW);

        Decision decision = override.decision(10, NOW.plus(Duration.ofHours(1)));

        assertThat(decision.allowed()).isFalse();
        assertThat(decision.remaining()).isZero();
        assertThat(decision.retryAfter()).isEqualTo(Duration.ofHours(1));
        assertThat(decision.limitName()).isEqualTo("login:blocked");
    }

    @Test
    void decision_exempt_allowsWithTheWholeLimit() {
        LimitOverride override = LimitOverride.forKey("login", "k").exempt().lasting(Duration.ofMinutes(5))
                .reason("partner").setBy("bob").build(NOW);

        Decision decision = override.decision(10, NOW);

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.remaining()).isEqualTo(10);
        assertThat(decision.limitName()).isEqualTo("login:exempt");
    }

    @Test
    void action_limits_namesTheLimits() {
        LimitOverride override = LimitOverride.forRule("login").limits(Limit.of(100, Duration.ofMinutes(1)))
                .lasting(Duration.ofMinutes(5)).reason("launch").setBy("bob").build(NOW);

        assertThat(override.action()).startsWith("limits [Limit[100/1m");
    }

    @Test
    void fromJson_whatToJsonWrote_isTheSameOverride() {
        LimitOverride limits = LimitOverride.forRule("login").limits(Limit.of(100, Duration.ofMinutes(1)),
                Limit.of(5, Duration.ofSeconds(1)).withCapacity(8).named("burst")).lasting(Duration.ofDays(30))
                .reason("launch \"day\"").setBy("bob").build(NOW);
        LimitOverride blocked = blockedKey().build(NOW);

        assertThat(LimitOverride.fromJson(limits.toJson())).isEqualTo(limits);
        assertThat(LimitOverride.fromJson(blocked.toJson())).isEqualTo(blocked);
        assertThat(blocked.toJson()).startsWith("{\"format\":1,\"rule\":\"login\",\"key\":\"account-42\"");
    }

    @Test
    void fromJson_newerFormat_throwsSayingSo() {
        String newer = blockedKey().build(NOW).toJson().replace("\"format\":1", "\"format\":2");

        assertThatThrownBy(() -> LimitOverride.fromJson(newer)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("written by a newer release");
    }

    @Test
    void fromJson_notJson_throws() {
        assertThatThrownBy(() -> LimitOverride.fromJson("[1]")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not an override's JSON");
    }
}
