package dev.sluice.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.engine.KeyMask;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.engine.RuleSet;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.LimitOverride;
import dev.sluice.store.LocalCounterStore;
import dev.sluice.store.StoreHealth;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConsoleTest {

    @TempDir
    Path temp;

    private static final Clock AT_NOON = Clock.fixed(Instant.parse("2026-11-27T12:00:00Z"), ZoneOffset.UTC);

    private static Console console(LocalCounterStore store, ConsoleRecorder recorder, ReloadingRuleSet rules,
                                   String id, boolean clearKeys) {
        return Console.builder(store, recorder).instance(id).rules(rules, "rules.json").clock(AT_NOON)
                .interval(Duration.ofHours(1)).clearKeys(clearKeys).build();
    }

    private ReloadingRuleSet file(String name, String json) throws Exception {
        Path path = temp.resolve(name);
        Files.writeString(path, json);
        return ReloadingRuleSet.builder().file(path).reloadInterval(Duration.ZERO).build();
    }

    private static void send(ConsoleRecorder recorder, RuleSet rules, LocalCounterStore store, int requests,
                             String address) {
        for (int i = 0; i < requests; i++) {
            recorder.recorded(rules.evaluate(TestRequest.get("/hello").from(address), store), 0);
        }
    }

    @Test
    void cluster_twoInstancesPublished_sumsTheirTotalsSeriesAndKeys() throws Exception {
        ReloadingRuleSet rules = file("rules.json", ConsoleRecorderTest.RULES);
        ConsoleRecorder first = new ConsoleRecorder();
        ConsoleRecorder second = new ConsoleRecorder();
        try (LocalCounterStore store = new LocalCounterStore();
             Console a = console(store, first, rules, "a", true);
             Console b = console(store, second, rules, "b", true)) {
            send(first, rules.get(), store, 4, "198.51.100.1");
            send(second, rules.get(), store, 4, "198.51.100.1");
            a.publish();
            b.publish();

            ClusterView view = a.cluster();

            assertThat(view.drift()).isFalse();
            assertThat(view.instances()).extracting(ClusterView.InstanceView::instance).containsExactly("a", "b");
            RuleFigures hello = view.rules().get(0);
            assertThat(hello.id()).isEqualTo("hello");
            assertThat(hello.totals()).isEqualTo(new Counts(5, 0, 3, 0));
            assertThat(Arrays.stream(hello.series().allowed()).sum()).isEqualTo(5);
            assertThat(hello.series().rejected()[Console.SLOTS - 1]).isEqualTo(3);
            assertThat(hello.keys()).containsExactly(new KeyFigures("198.51.100.1", 3, 0));
        }
    }

    @Test
    void cluster_instancesWhoseStoresFoundSynchronisedHitsOverTheLimit_sumThemOnTheRulesCard() throws Exception {
        ReloadingRuleSet rules = file("rules.json", ConsoleRecorderTest.RULES);
        ConsoleRecorder first = new ConsoleRecorder();
        ConsoleRecorder second = new ConsoleRecorder();
        StoreHealth overBy3 = overAdmitted(3);
        StoreHealth overBy4 = overAdmitted(4);
        try (LocalCounterStore store = new LocalCounterStore();
             Console a = Console.builder(store, first).instance("a").rules(rules, "rules.json").clock(AT_NOON)
                     .interval(Duration.ofHours(1)).health(() -> overBy3).build();
             Console b = Console.builder(store, second).instance("b").rules(rules, "rules.json").clock(AT_NOON)
                     .interval(Duration.ofHours(1)).health(() -> overBy4).build()) {
            send(first, rules.get(), store, 1, "198.51.100.1");
            send(second, rules.get(), store, 1, "198.51.100.2");
            a.publish();
            b.publish();

            assertThat(a.local().rules().get(0).overAdmitted()).isEqualTo(3);
            assertThat(a.cluster().rules().get(0).overAdmitted()).isEqualTo(7);
        }
    }

    @Test
    void local_decisionsSinceThePublication_showInTheNewestSlot() throws Exception {
        ReloadingRuleSet rules = file("rules.json", ConsoleRecorderTest.RULES);
        ConsoleRecorder recorder = new ConsoleRecorder();
        try (LocalCounterStore store = new LocalCounterStore();
             Console console = console(store, recorder, rules, "a", true)) {
            send(recorder, rules.get(), store, 3, "198.51.100.1");
            console.publish();
            send(recorder, rules.get(), store, 4, "198.51.100.1");

            RuleFigures.Series series = console.local().rules().get(0).series();

            assertThat(series.at(Console.SLOTS - 2)).isEqualTo(new Counts(3, 0, 0, 0));
            assertThat(series.at(Console.SLOTS - 1)).isEqualTo(new Counts(2, 0, 2, 0));
            assertThat(console.local().rules().get(0).totals()).isEqualTo(new Counts(5, 0, 2, 0));
        }
    }

    @Test
    void cluster_clearKeysOff_showsEachKeyAsItsMask() throws Exception {
        ReloadingRuleSet rules = file("rules.json", ConsoleRecorderTest.RULES);
        ConsoleRecorder recorder = new ConsoleRecorder();
        try (LocalCounterStore store = new LocalCounterStore();
             Console console = console(store, recorder, rules, "a", false)) {
            send(recorder, rules.get(), store, 7, "198.51.100.9");
            console.publish();

            assertThat(console.cluster().rules().get(0).keys()).extracting(KeyFigures::key)
                    .containsExactly(KeyMask.of("198.51.100.9"));
            assertThat(console.local().rules().get(0).keys()).extracting(KeyFigures::key)
                    .containsExactly(KeyMask.of("198.51.100.9"));
        }
    }

    @Test
    void removeOverride_keyThatRequestsResolveEscaped_removesIt() throws Exception {
        ReloadingRuleSet rules = file("rules.json", ConsoleRecorderTest.RULES);
        try (LocalCounterStore store = new LocalCounterStore();
             Console console = console(store, new ConsoleRecorder(), rules, "a", true)) {
            console.setOverride(LimitOverride.forKey("hello", "50%|off").blocked().lasting(Duration.ofMinutes(10))
                    .reason("ticket 7").setBy("alice"));

            assertThat(console.removeOverride("hello", "50%|off", "bob")).isPresent();
            assertThat(console.overrides()).isEmpty();
        }
    }

    @Test
    void cluster_oneInstanceReloadedOtherRules_flagsDriftOnThatInstance() throws Exception {
        ReloadingRuleSet same = file("a.json", ConsoleRecorderTest.RULES);
        Path changed = temp.resolve("b.json");
        Files.writeString(changed, ConsoleRecorderTest.RULES);
        ReloadingRuleSet reloaded = ReloadingRuleSet.builder().file(changed).reloadInterval(Duration.ZERO).build();
        try (LocalCounterStore store = new LocalCounterStore();
             Console a = console(store, new ConsoleRecorder(), same, "a", false);
             Console b = console(store, new ConsoleRecorder(), reloaded, "b", false)) {
            a.publish();
            b.publish();
            assertThat(a.cluster().drift()).isFalse();

            Files.writeString(changed, ConsoleRecorderTest.RULES.replace("\"permits\": 5", "\"permits\": 50"));
            assertThat(reloaded.reload()).isTrue();
            b.publish();

            ClusterView view = a.cluster();
            assertThat(view.drift()).isTrue();
            assertThat(view.instances()).filteredOn(ClusterView.InstanceView::drifted)
                    .extracting(ClusterView.InstanceView::instance).containsExactly("b");
        }
    }

    @Test
    void snapshotText_tenThousandActiveKeysPerRule_staysBounded() throws Exception {
        ReloadingRuleSet rules = file("rules.json", ConsoleRecorderTest.RULES);
        ConsoleRecorder recorder = new ConsoleRecorder();
        try (LocalCounterStore store = new LocalCounterStore();
             Console console = console(store, recorder, rules, "a", false)) {
            for (int key = 0; key < 10_000; key++) {
                send(recorder, rules.get(), store, 7, "10.0." + key / 250 + "." + key % 250);
            }
            console.publish();

            String text = console.snapshotText();
            assertThat(console.local().rules().get(0).keys()).hasSize(ConsoleRecorder.PUBLISHED_KEYS);
            assertThat(text.getBytes(StandardCharsets.UTF_8).length).isLessThan(8_192);
        }
    }

    /** The health of a two-member store whose owners found rule {@code hello}'s hits {@code permits} past its limit. */
    private static StoreHealth overAdmitted(long permits) {
        return new StoreHealth("cluster", 2, StoreHealth.Failures.NONE, new StoreHealth.Cluster(0, 0, List.of(),
                StoreHealth.Leasing.NONE, new StoreHealth.Synchronised(0, 0, Map.of("hello", permits))));
    }
}
