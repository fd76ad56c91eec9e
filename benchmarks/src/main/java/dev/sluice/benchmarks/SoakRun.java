package dev.sluice.benchmarks;

import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.hazelcast.MemberOptions;
import dev.sluice.hazelcast.StoreOptions;
import dev.sluice.store.Command;
import dev.sluice.store.LocalCounterStore;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * A bounded soak: for {@code minutes}, threads decide on keys drawn at random from {@code keys} distinct ones, each
 * decision made on both a two-member Hazelcast cluster (in this JVM, configured by the store's simple settings) and a
 * local store, each bounded to fewer keys than are live at once, so eviction and expiry run all the time. Every 30 s
 * it prints the decision rate, both stores' key counts against their bounds, and the heap in use after a full GC.
 * Then the load stops, and it prints how long the idle keys take to expire (a probe decision per second keeps the
 * local store's sweep running, as any traffic does). Stops after {@code minutes} or {@code maxDecisions}, whichever
 * comes first.
 *
 * <p>Run: {@code java -Xmx2g -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.SoakRun [minutes] [keys]
 * [threads] [maxDecisions]}; defaults 10, 1,000,000, 4, 100,000,000.
 */
public final class SoakRun {

    /** 10 per minute: one decision leaves a key 6 s from full capacity, the time it then lives. */
    private static final Policy POLICY = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofMinutes(1)));
    private static final int MAX_KEYS_PER_MEMBER = 50_000;
    private static final int MAX_LOCAL_KEYS = 100_000;
    private static final Duration REPORT_EVERY = Duration.ofSeconds(30);
    private static final Duration IDLE_LIMIT = Duration.ofMinutes(3);

    private SoakRun() {
    }

    public static void main(String[] args) throws Exception {
        Duration length = Duration.ofMinutes(args.length > 0 ? Long.parseLong(args[0]) : 10);
        int keys = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        long maxDecisions = args.length > 3 ? Long.parseLong(args[3]) : 100_000_000L;
        System.out.printf(Locale.ROOT, "soak: %s, %,d keys, %d threads, at most %,d decisions, policy %s%n", length,
                keys, threads, maxDecisions, "10 per minute (token bucket)");
        System.out.printf(Locale.ROOT, "bounds: Hazelcast %,d keys per member (2 members), local %,d keys%n",
                MAX_KEYS_PER_MEMBER, MAX_LOCAL_KEYS);

        List<Integer> ports = List.of(BenchmarkCluster.freePort(), BenchmarkCluster.freePort());
        String clusterName = "sluice-soak-" + UUID.randomUUID();
        List<HazelcastCounterStore> members = new ArrayList<>();
        for (int port : ports) {
            members.add(HazelcastCounterStore.startMember(MemberOptions.builder().clusterName(clusterName)
                    .bindAddress("127.0.0.1").port(port)
                    .members(ports.stream().map(p -> "127.0.0.1:" + p).toList())
                    .property("hazelcast.logging.type", "none").property("hazelcast.phone.home.enabled", "false")
                    .store(StoreOptions.builder().maxKeysPerMember(MAX_KEYS_PER_MEMBER).build()).build()));
        }
        try (HazelcastCounterStore hazelcast = members.get(0); HazelcastCounterStore second = members.get(1)) {
            LocalCounterStore local = new LocalCounterStore(TimeSource.system(), MAX_LOCAL_KEYS);
            LongAdder decisions = new LongAdder();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (!stop.get()) {
                        String key = "soak|10.0." + random.nextInt(keys);
                        hazelcast.execute(key, Command.decide(POLICY, 1, 0));
                        local.execute(key, Command.decide(POLICY, 1, 0));
                        decisions.increment();
                    }
                }, "soak-" + t);
                workers.add(worker);
                worker.start();
            }

            long start = System.nanoTime();
            long end = start + length.toNanos();
            long lastDecisions = 0;
            long lastReport = start;
            System.out.println("  elapsed   decisions/s   hazelcast keys   local keys   heap after GC (MB)");
            while (System.nanoTime() < end && decisions.sum() < maxDecisions) {
                Thread.sleep(Math.min(REPORT_EVERY.toMillis(),
                        Math.max(1, (end - System.nanoTime()) / 1_000_000)));
                long now = System.nanoTime();
                long total = decisions.sum();
                System.out.printf(Locale.ROOT, "%8ds   %,11.0f   %,14d   %,10d   %,18.1f%n",
                        Duration.ofNanos(now - start).toSeconds(),
                        (total - lastDecisions) / ((now - lastReport) / 1e9), hazelcast.size(), local.size(),
                        usedAfterGc() / 1e6);
                lastDecisions = total;
                lastReport = now;
            }
            stop.set(true);
            for (Thread worker : workers) {
                worker.join();
            }
            long total = decisions.sum();
            // Each decision draws one of the keys: the share of them drawn at least once is 1 - e^(-draws/keys).
            System.out.printf(Locale.ROOT, "load stopped after %,d decisions in %d s; about %,.0f distinct keys used%n",
                    total, Duration.ofNanos(System.nanoTime() - start).toSeconds(),
                    keys * (1 - Math.exp(-(double) total / keys)));

            long idleStart = System.nanoTime();
            while (hazelcast.size() + local.size() > 2 && System.nanoTime() - idleStart < IDLE_LIMIT.toNanos()) {
                Thread.sleep(1000);
                hazelcast.execute("idle-probe", Command.decide(POLICY, 0, 0));
                local.execute("idle-probe", Command.decide(POLICY, 0, 0));
                long idle = Duration.ofNanos(System.nanoTime() - idleStart).toSeconds();
                if (idle % 10 == 0) {
                    System.out.printf(Locale.ROOT, "  idle %3ds: hazelcast keys %,d, local keys %,d%n", idle,
                            hazelcast.size(), local.size());
                }
            }
            System.out.printf(Locale.ROOT,
                    "idle: after %d s, hazelcast keys %,d, local keys %,d, heap after GC %.1f MB%n",
                    Duration.ofNanos(System.nanoTime() - idleStart).toSeconds(), hazelcast.size(), local.size(),
                    usedAfterGc() / 1e6);
            local.close();
        }
        System.exit(0);
    }

    private static long usedAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
