package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class InMemoryLimitOverridesTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final InMemoryLimitOverrides overrides = new InMemoryLimitOverrides(time);

    private LimitOverride blocked(String key, Duration lasting) {
        return LimitOverride.forKey("login", key).blocked().lasting(lasting).reason("abuse").setBy("alice")
                .build(overrides.now());
    }

    private LimitOverride raised(Duration lasting) {
        return LimitOverride.forRule("login").limits(Limit.of(100, Duration.ofMinutes(1))).lasting(lasting)
                .reason("launch").setBy("bob").build(overrides.now());
    }

    @Test
    void active_withNone_isEmpty() {
        assertThat(overrides.active().isEmpty()).isTrue();
        assertThat(overrides.active().find("login", "k")).isEmpty();
    }

    @Test
    void find_keyAndRuleOverrides_givesTheKeysOwnFirst() {
        LimitOverride own = overrides.set(blocked("k", Duration.ofHours(1)));
        LimitOverride rule = overrides.set(raised(Duration.ofHours(1)));

        assertThat(overrides.active().find("login", "k")).contains(own);
        assertThat(overrides.active().find("login", "other")).contains(rule);
        assertThat(overrides.active().find("search", "k")).isEmpty();
    }

    @Test
    void find_afterExpiry_isEmptyAndTheRulesOwnLimitHolds() {
        overrides.set(blocked("k", Duration.ofMinutes(10)));
        LimitOverrides.Active taken = overrides.active();

        time.advance(Duration.ofMinutes(10));

        assertThat(taken.find("login", "k")).as("checked at decision time").isEmpty();
        assertThat(overrides.active().isEmpty()).isTrue();
        assertThat(overrides.list()).isEmpty();
    }

    @Test
    void find_keyOverrideExpiredWhileRuleOverrideLasts_givesTheRules() {
        overrides.set(blocked("k", Duration.ofMinutes(1)));
        LimitOverride rule = overrides.set(raised(Duration.ofHours(1)));

        time.advance(Duration.ofMinutes(1));

        assertThat(overrides.active().find("login", "k")).contains(rule);
    }

    @Test
    void set_sameTarget_replacesTheEarlierOne() {
        overrides.set(blocked("k", Duration.ofMinutes(1)));
        LimitOverride later = overrides.set(blocked("k", Duration.ofHours(3)));

        assertThat(overrides.list()).containsExactly(later);
    }

    @Test
    void set_endedByTheStoresTime_throws() {
        LimitOverride override = blocked("k", Duration.ofMinutes(1));
        time.advance(Duration.ofMinutes(2));

        assertThatThrownBy(() -> overrides.set(override)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ended at");
    }

    @Test
    void remove_existing_returnsItAndTheRulesOwnLimitHolds() {
        LimitOverride override = overrides.set(blocked("k", Duration.ofHours(1)));

        assertThat(overrides.remove(LimitOverride.Target.key("login", "k"), "carol")).contains(override);
        assertThat(overrides.active().find("login", "k")).isEmpty();
        assertThat(overrides.remove(LimitOverride.Target.key("login", "k"), "carol")).isEmpty();
    }

    @Test
    void list_severalRules_ordersByRuleThenKeyRulesOwnFirst() {
        LimitOverride b = overrides.set(blocked("b", Duration.ofHours(1)));
        LimitOverride a = overrides.set(blocked("a", Duration.ofHours(1)));
        LimitOverride rule = overrides.set(raised(Duration.ofHours(1)));

        assertThat(overrides.list()).containsExactly(rule, a, b);
    }

    @Test
    void replaceAll_withoutOneHeld_withdrawsItAndAddsTheNew() {
        overrides.set(blocked("gone", Duration.ofHours(1)));
        LimitOverride arrived = blocked("new", Duration.ofHours(1));

        overrides.replaceAll(List.of(arrived));

        assertThat(overrides.list()).containsExactly(arrived);
        assertThat(overrides.active().find("login", "gone")).isEmpty();
    }

    @Test
    void set_unsupported_throws() {
        assertThatThrownBy(() -> LimitOverrides.unsupported().set(blocked("k", Duration.ofHours(1))))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(LimitOverrides.unsupported().active().isEmpty()).isTrue();
    }

    @Test
    void overrides_localStore_keepsThemAcrossCalls() {
        try (LocalCounterStore store = new LocalCounterStore(time, 100, Runnable::run)) {
            store.services().overrides().set(LimitOverride.forKey("login", "k").exempt().lasting(Duration.ofMinutes(1))
                    .reason("r").setBy("s").build(store.services().overrides().now()));

            assertThat(store.services().overrides().list()).hasSize(1);
            assertThat(FailurePolicyStore.allowing(store, Duration.ofSeconds(1)).services().overrides())
                    .as("a store in front passes them on").isSameAs(store.services().overrides());
        }
    }
}
