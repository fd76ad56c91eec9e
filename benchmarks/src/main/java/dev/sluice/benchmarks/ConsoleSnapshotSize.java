package dev.sluice.benchmarks;

import dev.sluice.TimeSource;
import dev.sluice.console.Console;
import dev.sluice.console.ConsoleRecorder;
import dev.sluice.rules.ReloadingRuleSet;
import dev.sluice.rules.RequestView;
import dev.sluice.rules.RuleSet;
import dev.sluice.store.LocalCounterStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The size of what one instance publishes into the cluster per interval ({@link Console#snapshotText()}), with
 * 10,000 active client keys, each over its limit, on one rule and on five: a bounded top-k keeps it independent of
 * the number of keys. Counts in the local store; prints one line per case.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.ConsoleSnapshotSize [keys]}.
 */
public final class ConsoleSnapshotSize {

    private static final String RULE = """
            {"id": "per-ip-%d", "match": {"paths": ["/api/**"]}, "key": {"type": "ip"},
             "limits": [{"permits": 1, "period": "1h"}]}""";

    private ConsoleSnapshotSize() {
    }

    public static void main(String[] args) {
        int keys = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        for (int rules : new int[] {1, 5}) {
            System.out.printf("%,d active keys, %d rule(s): %,d bytes per interval%n", keys, rules,
                    publishedBytes(keys, rules));
        }
    }

    /** The bytes one instance publishes after {@code keys} clients each sent 3 requests through {@code rules} rules. */
    static int publishedBytes(int keys, int rules) {
        StringBuilder json = new StringBuilder("{\"rules\": [");
        for (int i = 0; i < rules; i++) {
            json.append(i == 0 ? "" : ",").append(RULE.formatted(i));
        }
        json.append("]}");
        RuleSet ruleSet;
        try (ReloadingRuleSet loaded = ReloadingRuleSet.builder()
                .content("rules.json", json.toString().getBytes(StandardCharsets.UTF_8)).build()) {
            ruleSet = loaded.get();
            ConsoleRecorder recorder = new ConsoleRecorder();
            try (LocalCounterStore store = new LocalCounterStore(TimeSource.system(), keys * rules * 2L);
                 Console console = Console.builder(store, recorder).rules(loaded, "rules.json").build()) {
                for (int key = 0; key < keys; key++) {
                    RequestView request = new Client(HttpOverheadServer.clientAddress(key));
                    for (int request3 = 0; request3 < 3; request3++) {
                        recorder.recorded(ruleSet.evaluate(request, store), 0);
                    }
                }
                return console.snapshotText().getBytes(StandardCharsets.UTF_8).length;
            }
        }
    }

    /** A GET of {@code /api/hello} from {@code address}. */
    private record Client(String address) implements RequestView {
        @Override
        public String method() {
            return "GET";
        }

        @Override
        public String rawPath() {
            return "/api/hello";
        }

        @Override
        public String host() {
            return "127.0.0.1";
        }

        @Override
        public List<String> headers(String name) {
            return List.of();
        }

        @Override
        public @Nullable String cookie(String name) {
            return null;
        }

        @Override
        public @Nullable String queryParameter(String name) {
            return null;
        }

        @Override
        public String remoteAddress() {
            return address;
        }
    }
}
