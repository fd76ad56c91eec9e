package dev.sluice.benchmarks;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.engine.Evaluation;
import dev.sluice.engine.RuleSet;
import dev.sluice.rules.KeySpec;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleBuilder;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.rules.match.RequestView;
import dev.sluice.store.LocalCounterStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of finding the rules of one request among 1, 100 or 1,000 rules (two path patterns each, one in a hundred
 * starting with a wildcard), and of matching plus counting it in the local store. Requests carry a
 * {@code ;jsessionid} parameter, so path normalization is part of the cost.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class RuleMatchingBenchmark {

    @Param({"1", "100", "1000"})
    public int ruleCount;

    private RuleSet rules;
    private RequestView[] requests;
    private LocalCounterStore store;

    @Setup
    public void setUp() {
        Policy plenty = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(1_000_000_000, Duration.ofSeconds(1)));
        List<Rule> built = new ArrayList<>();
        for (int i = 0; i < ruleCount; i++) {
            RuleBuilder rule = i % 100 == 99
                    ? Rule.builder("wildcard" + i).paths("/*/health" + i, "/**").methods("DELETE")
                    : Rule.builder("service" + i)
                            .paths("/api/v1/svc" + i + "/items/{id}", "/api/v1/svc" + i + "/admin/**")
                            .methods("GET", "POST").key(KeySpec.of(KeySpec.Kind.HEADER, "X-Api-Key"));
            built.add(rule.policy(plenty).build());
        }
        rules = RuleSet.of(built, ClientAddresses.direct());
        requests = new RequestView[64];
        for (int i = 0; i < requests.length; i++) {
            requests[i] = new Request("/api/v1/svc" + (i * 15 % ruleCount) + "/items/" + i + ";jsessionid=x",
                    "key-" + i);
        }
        store = new LocalCounterStore(new ManualTimeSource(), 1_000_000, Runnable::run);
    }

    @Benchmark
    public List<Rule> match(Keys.Cursor cursor) {
        return rules.match(requests[cursor.next(requests.length)]);
    }

    @Benchmark
    public Evaluation matchAndCount(Keys.Cursor cursor) {
        return rules.evaluate(requests[cursor.next(requests.length)], store);
    }

    /** A GET with an API key, from 192.0.2.1. */
    record Request(String rawPath, String apiKey) implements RequestView {
        @Override
        public String method() {
            return "GET";
        }

        @Override
        public String host() {
            return "api.example.com";
        }

        @Override
        public List<String> headers(String name) {
            return name.equalsIgnoreCase("X-Api-Key") ? List.of(apiKey) : List.of();
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
            return "192.0.2.1";
        }
    }
}
