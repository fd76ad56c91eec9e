package dev.sluice.rules.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sluice.ManualTimeSource;
import dev.sluice.annotation.RateLimited;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.engine.RuleSet;
import dev.sluice.rules.AnnotationRules;
import dev.sluice.rules.KeySpec;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RulesException;
import dev.sluice.rules.match.HostPattern;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.LocalCounterStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Proves that no rules file, however damaged, gets past the reader other than as a usable rule set or a
 * {@link RulesException} that names the file, line, column and JSON path (issue 9). Mutations of every valid example
 * ({@link RulesMutator}) are parsed the way {@link ReloadingRuleSet} parses a file, from its bytes, and combined with
 * the annotation rules of {@link AnnotatedResource} into a {@link RuleSet}. Any other exception or error fails the
 * test, as does a case without an answer within {@link #CASE_BOUND_SECONDS} (a hang guard, not a performance
 * assertion). An accepted file must also evaluate a request for each of its path patterns without an exception.
 *
 * <p>10,000 cases by default; the README (Commands) shows a longer run. Case {@code i} of a run depends only on the
 * seed and {@code i}: a failure names both, and {@code -Dsluice.fuzz.seed=S -Dsluice.fuzz.cases=i+1} reproduces it.
 */
class RulesFileFuzzTest {

    private static final long SEED = Long.getLong("sluice.fuzz.seed", 9L);
    private static final int CASES = Integer.getInteger("sluice.fuzz.cases", 10_000);
    private static final long CASE_BOUND_SECONDS = 10;
    private static final String NAME = "fuzzed.json";
    private static final int SHOWN_BYTES = 600;
    private static final List<Rule> ANNOTATIONS = AnnotationRules.forClass(AnnotatedResource.class);

    /** Defines the rules that the examples name without a "match"; a file rule of the same id overrides them. */
    static class AnnotatedResource {
        @RateLimited(id = "search", permits = 10, period = "1s")
        public void search() {
        }

        @RateLimited(id = "reindex", permits = 1, period = "1h")
        public void reindex() {
        }
    }

    /** How one case ended: accepted, rejected with a positioned error, or a problem (anything else). */
    private record Outcome(boolean accepted, Throwable problem) {
    }

    @Test
    void parse_mutatedValidFiles_acceptOrRejectWithAPositionedError() throws Exception {
        RulesMutator mutator = new RulesMutator(validFiles());
        LocalCounterStore store = new LocalCounterStore(new ManualTimeSource(), 10_000, Runnable::run);
        ExecutorService worker = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "rules-fuzz");
            thread.setDaemon(true);
            return thread;
        });
        Map<String, String> problems = new LinkedHashMap<>();
        int accepted = 0;
        int failed = 0;
        long start = System.nanoTime();
        try {
            for (int index = 0; index < CASES; index++) {
                RulesMutator.Case fuzzCase = mutator.mutate(RulesMutator.randomFor(SEED, index));
                Future<Outcome> running = worker.submit(() -> check(fuzzCase.content(), store));
                Outcome outcome;
                try {
                    outcome = running.get(CASE_BOUND_SECONDS, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    fail("no answer within " + CASE_BOUND_SECONDS + " s: " + describe(index, fuzzCase, null));
                    return;
                } catch (ExecutionException e) {
                    outcome = new Outcome(false, e.getCause());
                }
                if (outcome.problem() != null) {
                    failed++;
                    problems.putIfAbsent(signature(outcome.problem()), describe(index, fuzzCase, outcome.problem()));
                } else if (outcome.accepted()) {
                    accepted++;
                }
            }
        } finally {
            worker.shutdownNow();
            store.close();
        }
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf("RulesFileFuzzTest: %,d cases (seed %d): %,d accepted, %,d rejected, %,d failed, %.1f s%n",
                CASES, SEED, accepted, CASES - accepted - failed, failed, elapsedMillis / 1000.0);
        assertThat(problems).as("cases that neither parsed nor failed with a positioned RulesException, one per kind")
                .isEmpty();
    }

    /** The valid example files, which are the seeds; each must itself be accepted. */
    private static List<String> validFiles() throws IOException {
        try (Stream<Path> files = Files.list(RulesFileTest.resource("valid"))) {
            List<String> seeds = new ArrayList<>();
            for (Path file : files.sorted().toList()) {
                RuleSet.combine(RulesFile.read(file), ANNOTATIONS);
                seeds.add(Files.readString(file));
            }
            return seeds;
        }
    }

    /** Parses a case as a file is read; an accepted one then evaluates a request per path pattern. */
    private static Outcome check(byte[] content, LocalCounterStore store) {
        RuleSet rules;
        try {
            rules = RuleSet.combine(RulesFile.parse(NAME, content), ANNOTATIONS);
        } catch (RulesException e) {
            boolean positioned = e.source().equals(Optional.of(NAME)) && e.line() >= 1 && e.column() >= 1
                    && e.jsonPath().filter(path -> path.startsWith("$")).isPresent();
            return new Outcome(false, positioned ? null : new AssertionError("not positioned", e));
        } catch (Throwable e) {
            return new Outcome(false, e);
        }
        try {
            for (Rule rule : rules.rules()) {
                for (String pattern : rule.match().paths()) {
                    rules.evaluate(requestFor(rule, pattern), store);
                }
            }
            return new Outcome(true, null);
        } catch (Throwable e) {
            return new Outcome(false, new AssertionError("accepted, then failed to evaluate a request", e));
        }
    }

    /** A request that the rule matches by {@code pattern}, carrying every attribute a key could be made of. */
    private static TestRequest requestFor(Rule rule, String pattern) {
        String path = pattern.replaceAll("\\{[^/]*}|\\*\\*?", "x");
        TestRequest request = TestRequest.get(path).principal("user").from("10.1.2.3")
                .header("X-Forwarded-For", "192.0.2.1").header("Forwarded", "for=192.0.2.1");
        if (!rule.match().methods().isEmpty()) {
            request.method(rule.match().methods().iterator().next());
        }
        rule.match().host().map(HostPattern::toString)
                .ifPresent(host -> request.host(host.startsWith("*.") ? "a" + host.substring(1) : host));
        List<KeySpec> keys = new ArrayList<>(rule.key().spec().parts());
        keys.add(rule.key().spec());
        rule.tierKey().ifPresent(tierKey -> {
            keys.addAll(tierKey.parts());
            keys.add(tierKey);
        });
        for (KeySpec key : keys) {
            if (key.kind().named()) {
                String value = rule.requestLimits().orElseThrow().tiers().keySet().stream().findFirst().orElse("value");
                request.header(key.name(), value).cookie(key.name(), value).query(key.name(), value)
                        .pathParameter(key.name(), value);
            }
        }
        return request;
    }

    /** One kind of problem: the exception's class and the frame it came from. */
    private static String signature(Throwable problem) {
        Throwable root = problem instanceof AssertionError && problem.getCause() != null ? problem.getCause() : problem;
        StackTraceElement[] trace = root.getStackTrace();
        return root.getClass().getName() + (trace.length == 0 ? "" : " at " + trace[0]);
    }

    /** The case's seed, index, mutations, problem (if any) and the start of its text. */
    private static String describe(int index, RulesMutator.Case fuzzCase, Throwable problem) {
        byte[] content = fuzzCase.content();
        String text = new String(content, 0, Math.min(SHOWN_BYTES, content.length), StandardCharsets.UTF_8);
        String cause = problem == null || problem.getCause() == null ? "" : " <- " + problem.getCause();
        return "seed " + SEED + " case " + index + " " + fuzzCase.mutations() + (problem == null ? "" : ": " + problem)
                + cause + "\n--- file (" + content.length + " bytes"
                + (content.length > SHOWN_BYTES ? ", first " + SHOWN_BYTES : "") + ") ---\n" + text + "\n---";
    }
}
