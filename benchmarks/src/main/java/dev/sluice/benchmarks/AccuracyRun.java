package dev.sluice.benchmarks;

import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import java.time.Duration;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * How often the sliding window counter decides differently from the exact sliding window log, on a synthetic bursty
 * trace of at least 10 million requests across many keys (a public report measured 0.003% over 400 million).
 *
 * <p>Each key alternates between quiet phases of Poisson arrivals and bursts, with exponentially distributed phase
 * lengths (mean 5 min quiet, 30 s burst); a quiet phase always follows a burst. Two profiles: {@code bursty} (quiet
 * at 20% to 120% of the limit; after each quiet phase, a burst of 2x to 10x with probability 30%) and
 * {@code typical} (quiet at 5% to 50%; after each quiet phase, a burst of 1.5x to 3x with probability 5%). Keys are
 * independent, so each key's arrivals are fed through both algorithms in turn, each keeping its own state: a request
 * counts as different when one algorithm grants it and the other does not. Deterministic for a seed.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.AccuracyRun bursty|typical
 * [requests] [seed]}
 */
public final class AccuracyRun {

    private static final Limit LIMIT = Limit.of(100, Duration.ofMinutes(1));
    private static final long KEY_SPAN_NANOS = Duration.ofHours(2).toNanos();
    private static final double LIMIT_PER_NANO = 100.0 / Duration.ofMinutes(1).toNanos();

    private AccuracyRun() {
    }

    public static void main(String[] args) {
        String profile = args.length > 0 ? args[0] : "bursty";
        if (!profile.equals("bursty") && !profile.equals("typical")) {
            throw new IllegalArgumentException("unknown trace profile '" + profile + "': expected bursty or typical");
        }
        boolean bursty = profile.equals("bursty");
        double quietLow = bursty ? 0.2 : 0.05;
        double quietSpan = bursty ? 1.0 : 0.45;
        double burstShare = bursty ? 0.3 : 0.05;
        double burstLow = bursty ? 2 : 1.5;
        double burstSpan = bursty ? 8 : 1.5;
        long target = args.length > 1 ? Long.parseLong(args[1]) : 10_000_000L;
        long seed = args.length > 2 ? Long.parseLong(args[2]) : 20261122L;
        Policy exact = Policy.of(Algorithm.SLIDING_WINDOW_LOG, LIMIT);
        Policy estimated = Policy.of(Algorithm.SLIDING_WINDOW_COUNTER, LIMIT);
        SplittableRandom random = new SplittableRandom(seed);

        long requests = 0;
        long keys = 0;
        long exactGranted = 0;
        long wronglyGranted = 0;
        long wronglyRejected = 0;
        while (requests < target) {
            keys++;
            long[][] exactState = null;
            long[][] estimatedState = null;
            long now = 1_767_225_600_000_000_000L + random.nextLong(Duration.ofMinutes(1).toNanos());
            long end = now + KEY_SPAN_NANOS;
            boolean burst = false;
            long phaseEnd = now;
            double ratePerNano = 0;
            while (true) {
                if (now >= phaseEnd) {
                    burst = !burst && random.nextDouble() < burstShare;
                    double multiple = burst ? burstLow + burstSpan * random.nextDouble()
                            : quietLow + quietSpan * random.nextDouble();
                    ratePerNano = LIMIT_PER_NANO * multiple;
                    long meanPhase = burst ? Duration.ofSeconds(30).toNanos() : Duration.ofMinutes(5).toNanos();
                    phaseEnd = now + exponential(random, meanPhase);
                }
                now += exponential(random, 1 / ratePerNano);
                if (now >= end) {
                    break;
                }
                var exactTransition = exact.apply(exactState, now, 1, 0);
                var estimatedTransition = estimated.apply(estimatedState, now, 1, 0);
                exactState = exactTransition.state();
                estimatedState = estimatedTransition.state();
                boolean truth = exactTransition.decision().allowed();
                boolean guess = estimatedTransition.decision().allowed();
                requests++;
                if (truth) {
                    exactGranted++;
                }
                if (guess && !truth) {
                    wronglyGranted++;
                } else if (!guess && truth) {
                    wronglyRejected++;
                }
            }
        }
        System.out.printf(Locale.ROOT, "%s trace: requests %,d over %,d keys (limit %s, 2 h per key), "
                        + "exact log granted %.2f%%%n", profile, requests, keys, LIMIT,
                100.0 * exactGranted / requests);
        System.out.printf(Locale.ROOT, "sliding window counter differs on %,d requests: %.4f%% "
                        + "(granted where the log rejects: %,d = %.4f%%; "
                        + "rejected where the log grants: %,d = %.4f%%)%n",
                wronglyGranted + wronglyRejected, 100.0 * (wronglyGranted + wronglyRejected) / requests,
                wronglyGranted, 100.0 * wronglyGranted / requests, wronglyRejected,
                100.0 * wronglyRejected / requests);
    }

    private static long exponential(SplittableRandom random, double mean) {
        return Math.max(1, (long) (-Math.log(1 - random.nextDouble()) * mean));
    }
}
