package dev.sluice.rules;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.store.LocalCounterStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A rough, manual check of matching cost with 1,000 rules; not a test and not a benchmark (those are JMH, in
 * {@code benchmarks/}). Run after {@code mvn -pl filter test-compile}:
 * {@code java -cp filter/target/classes:filter/target/test-classes:<jackson-core.jar>
 * dev.sluice.rules.MatchingSanityLoop}
 */
public final class MatchingSanityLoop {

    private MatchingSanityLoop() {
    }

    public static void main(String[] args) {
        List<Rule> rules = new ArrayList<>();
        for (int i = 0; i < 990; i++) {
            rules.add(Rule.builder("r" + i).paths("/api/v1/svc" + i + "/items/{id}", "/api/v1/svc" + i + "/admin/**")
                    .methods("GET", "POST").key(KeySpec.of(KeySpec.Kind.HEADER, "X-Api-Key"))
                    .limits(Limit.of(1_000_000, Duration.ofSeconds(1))).build());
        }
        for (int i = 0; i < 10; i++) {
            rules.add(Rule.builder("w" + i).paths("/*/health" + i, "/**").methods("DELETE")
                    .limits(Limit.of(1_000_000, Duration.ofSeconds(1))).build());
        }
        RuleSet ruleSet = RuleSet.of(rules, ClientAddresses.direct());
        TestRequest[] requests = new TestRequest[64];
        for (int i = 0; i < requests.length; i++) {
            requests[i] = TestRequest.get("/api/v1/svc" + (i * 15) + "/items/" + i + ";jsessionid=x")
                    .header("X-Api-Key", "key-" + i);
        }
        LocalCounterStore store = new LocalCounterStore(new ManualTimeSource(), 1_000_000, Runnable::run);
        long sink = 0;
        for (int round = 0; round < 5; round++) {
            int iterations = 2_000_000;
            long start = System.nanoTime();
            for (int i = 0; i < iterations; i++) {
                sink += ruleSet.match(requests[i & 63]).size();
            }
            long matched = System.nanoTime();
            for (int i = 0; i < iterations; i++) {
                sink += ruleSet.evaluate(requests[i & 63], store).outcomes().size();
            }
            long evaluated = System.nanoTime();
            System.out.printf("round %d: match %.0f ns/request, evaluate (match + count in LocalCounterStore)"
                    + " %.0f ns/request%n", round, (matched - start) / (double) iterations,
                    (evaluated - matched) / (double) iterations);
        }
        System.out.println("(checksum " + sink + ")");
    }
}
