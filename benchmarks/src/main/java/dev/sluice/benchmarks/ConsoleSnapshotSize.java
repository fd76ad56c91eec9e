package dev.sluice.benchmarks;

import dev.sluice.TimeSource;
import dev.sluice.console.Console;
import dev.sluice.console.ConsoleRecorder;
import dev.sluice.engine.Evaluation;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.engine.RuleSet;
import dev.sluice.store.LocalCounterStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The size of what one instance publishes into the cluster per interval ({@link Console#snapshotText()}) once its
 * series are full, on one rule and on five, for a given number of active client keys, each over its limit: a bounded
 * top-k keeps it independent of the number of keys. The keys' requests are spread over the 120 slots of the series
 * (100 ms each here), and each slot also counts {@value #ALLOWED_PER_SLOT} allowed requests, the load of BENCHMARKS
 * §8 per second, so that every number of the series has the digits a busy instance publishes. Counts in the local
 * store; prints one line per case, in about 13 s each.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.ConsoleSnapshotSize [keys...]}.
 */
public final class ConsoleSnapshotSize {

    private static final String RULE = """
            {"id": "per-key-%d", "match": {"paths": ["/api/**"]}, "key": {"type": "header", "name": "X-Api-Key"},
             "limits": [{"permits": 1, "period": "1h"}]}""";

    private static final int ALLOWED_PER_SLOT = 74_000;
    private static final Duration SLOT = Duration.ofMillis(100);

    private ConsoleSnapshotSize() {
    }

    public static void main(String[] args) throws InterruptedException {
        int[] keyCounts = args.length == 0 ? new int[] {10_000} : new int[args.length];
        for (int i = 0; i < args.length; i++) {
            keyCounts[i] = Integer.parseInt(args[i]);
        }
        for (int keys : keyCounts) {
            for (int rules : new int[] {1, 5}) {
                System.out.printf("%,d active keys, %d rule(s): %,d bytes per interval%n", keys, rules,
                        publishedBytes(keys, rules));
            }
        }
    }

    /** The bytes one instance publishes once {@code keys} clients each sent 3 requests through {@code rules} rules. */
    static int publishedBytes(int keys, int rules) throws InterruptedException {
        StringBuilder json = new StringBuilder("{\"rules\": [");
        for (int i = 0; i < rules; i++) {
            json.append(i == 0 ? "" : ",").append(RULE.formatted(i));
        }
        json.append("]}");
        try (ReloadingRuleSet loaded = ReloadingRuleSet.builder()
                .content("rules.json", json.toString().getBytes(StandardCharsets.UTF_8)).build()) {
            RuleSet ruleSet = loaded.get();
            ConsoleRecorder recorder = new ConsoleRecorder();
            try (LocalCounterStore store = new LocalCounterStore(TimeSource.system(), keys * rules * 2L);
                 Console console = Console.builder(store, recorder).rules(loaded, "rules.json").interval(SLOT)
                         .build()) {
                Evaluation allowed = ruleSet.evaluate(new RuleMatchingBenchmark.Request("/api/hello", "steady"), store);
                int slots = Console.SLOTS + 5;
                for (int slot = 0; slot < slots; slot++) {
                    for (int key = slot * keys / slots; key < (slot + 1) * keys / slots; key++) {
                        RuleMatchingBenchmark.Request request = new RuleMatchingBenchmark.Request("/api/hello",
                                "key-" + key);
                        for (int i = 0; i < 3; i++) {
                            recorder.recorded(ruleSet.evaluate(request, store), 0);
                        }
                    }
                    for (int i = 0; i < ALLOWED_PER_SLOT; i++) {
                        recorder.recorded(allowed, 0);
                    }
                    Thread.sleep(SLOT.toMillis());
                }
                return console.snapshotText().getBytes(StandardCharsets.UTF_8).length;
            }
        }
    }
}
