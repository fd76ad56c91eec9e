package dev.sluice.hazelcast;

import com.hazelcast.config.Config;
import com.hazelcast.core.LifecycleEvent;
import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;

/**
 * One cluster member in a JVM of its own, for {@link MemberProcesses}: an embedded member of the Sluice store on
 * loopback that prints {@code ready} once the cluster has {@code size} members, prints {@code merged} whenever it has
 * merged into another cluster after a split, and serves until its standard input closes (then it leaves cleanly), or
 * until it is killed.
 *
 * <p>Meanwhile it answers commands, one per line on its standard input, each starting with an id it repeats before
 * the answer ({@code <id> <answer>}): {@code apply <algorithm> <key> <times>} decides {@code times} requests of cost 1
 * under {@link #TEN_PER_HOUR} of that algorithm and answers the last remaining count; {@code peek <algorithm> <key>}
 * answers the remaining count; {@code join <port>} adds a member address to the TCP-IP list (which the split-brain
 * search reads afresh); {@code members} answers the cluster's size; {@code safe} answers whether the cluster is safe
 * (every partition owned and backed up, none migrating); {@code hold <key> <permits> <count>} takes {@code count}
 * concurrency permits of a limit of {@code permits} (held a day) and never releases them, answering how many it got;
 * {@code try <key> <permits>} takes one and releases it at once, answering {@code granted} or {@code rejected}.
 *
 * <p>Arguments: cluster name, cluster size, own port, then options, then the ports of every member:
 * <ul>
 *   <li>{@code latency=<ms>}: every decision this member owns takes that much longer (its clock read sleeps on the
 *       partition thread, as a slow store would);</li>
 *   <li>{@code wire=<version>}: the newest wire format version this member is told to read (sets
 *       {@value WireFormat#VERSION_PROPERTY} before any Sluice class reads it);</li>
 *   <li>{@code hot=<threads>x<attempts>}: once ready, spends that many attempts from each of that many threads on
 *       {@link #HOT_KEY} under {@link #HOT_POLICY}, then prints {@code admitted=<count>};</li>
 *   <li>{@code lease}: the store leases hot keys, and {@code hot} uses {@link #LEASED_HOT_POLICY}; before
 *       {@code admitted}, prints {@code slices=<count>}.</li>
 * </ul>
 * The listening socket reuses its address so that a member restarted after a kill gets the same port.
 */
public final class MemberProcess {

    static final String HOT_KEY = "hot-across-processes";
    static final Limit TEN_PER_HOUR = Limit.of(10, Duration.ofHours(1));
    static final Policy HOT_POLICY = Policy.of(Algorithm.SLIDING_WINDOW_LOG, Limit.of(300, Duration.ofHours(1)));
    /** A fixed window as long as a period may be, so that no run crosses its boundary. */
    static final Policy LEASED_HOT_POLICY = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(300, Limit.MAX_PERIOD))
            .leasing();

    private MemberProcess() {
    }

    public static void main(String[] args) throws Exception {
        String clusterName = args[0];
        int size = Integer.parseInt(args[1]);
        int port = Integer.parseInt(args[2]);
        long latencyMillis = 0;
        int hotThreads = 0;
        int hotAttempts = 0;
        boolean lease = false;
        List<Integer> ports = new ArrayList<>();
        for (String arg : Arrays.asList(args).subList(3, args.length)) {
            if (arg.startsWith("latency=")) {
                latencyMillis = Long.parseLong(arg.substring("latency=".length()));
            } else if (arg.startsWith("wire=")) {
                System.setProperty(WireFormat.VERSION_PROPERTY, arg.substring("wire=".length()));
            } else if (arg.equals("lease")) {
                lease = true;
            } else if (arg.startsWith("hot=")) {
                String[] spec = arg.substring("hot=".length()).split("x");
                hotThreads = Integer.parseInt(spec[0]);
                hotAttempts = Integer.parseInt(spec[1]);
            } else {
                ports.add(Integer.valueOf(arg));
            }
        }
        MemberOptions.Builder options = ClusterSupport.member(clusterName, port, ports);
        if (latencyMillis > 0) {
            options.timeSource(slowClock(Duration.ofMillis(latencyMillis)));
        }
        Config config = options.build().toConfig();
        config.getNetworkConfig().setReuseAddress(true).setPortAutoIncrement(false);
        config.setProperty("hazelcast.merge.first.run.delay.seconds", "1");
        config.setProperty("hazelcast.merge.next.run.delay.seconds", "1");
        // A hot key at any rate: which keys count as hot depends on this machine's speed, the lease bounds do not.
        try (HazelcastCounterStore store = HazelcastCounterStore.startMember(MemberOptions.builder().config(config)
                .store(StoreOptions.builder().leasing(lease).hotKeyRate(1).build()).build())) {
            store.instance().getLifecycleService().addLifecycleListener(event -> {
                if (event.getState() == LifecycleEvent.LifecycleState.MERGED) {
                    System.out.println("merged");
                    System.out.flush();
                }
            });
            ClusterSupport.awaitClusterSize(store.instance(), size);
            System.out.println("ready");
            System.out.flush();
            if (hotThreads > 0) {
                int admitted = hammer(store, lease ? LEASED_HOT_POLICY : HOT_POLICY, hotThreads, hotAttempts);
                if (lease) {
                    System.out.println("slices=" + store.leases().slicesTaken());
                }
                System.out.println("admitted=" + admitted);
                System.out.flush();
            }
            answerCommands(store, config);
        }
    }

    private static void answerCommands(HazelcastCounterStore store, Config config) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] words = line.split(" ");
            String answer = switch (words[1]) {
                case "apply" -> {
                    Policy policy = Policy.of(Algorithm.valueOf(words[2]), TEN_PER_HOUR);
                    long remaining = -1;
                    for (int i = 0; i < Integer.parseInt(words[4]); i++) {
                        remaining = store.execute(words[3], Command.decide(policy, 1, Long.MAX_VALUE)).remaining();
                    }
                    yield String.valueOf(remaining);
                }
                case "peek" -> String.valueOf(store.execute(words[3],
                        Command.peek(Policy.of(Algorithm.valueOf(words[2]), TEN_PER_HOUR), 0)).remaining());
                case "join" -> {
                    config.getNetworkConfig().getJoin().getTcpIpConfig()
                            .addMember(ClusterSupport.LOOPBACK + ":" + words[2]);
                    yield "joining";
                }
                case "hold" -> {
                    ConcurrencyLimit limit = ConcurrencyLimit.of(Long.parseLong(words[3]), Duration.ofDays(1));
                    int got = 0;
                    for (int i = 0; i < Integer.parseInt(words[4]); i++) {
                        got += store.executeAsync(words[2],
                                Command.acquire(limit)).toCompletableFuture().join().decision().allowed()
                                ? 1 : 0;
                    }
                    yield String.valueOf(got);
                }
                case "try" -> {
                    Counted held = store.executeAsync(words[2],
                            Command.acquire(ConcurrencyLimit.of(Long.parseLong(words[3]),
                                    Duration.ofDays(1)))).toCompletableFuture()
                            .join();
                    held.giveBack().toCompletableFuture().join();
                    yield held.decision().allowed() ? "granted" : "rejected";
                }
                case "members" -> String.valueOf(store.instance().getCluster().getMembers().size());
                case "safe" -> String.valueOf(store.instance().getPartitionService().isClusterSafe());
                default -> "unknown command " + words[1];
            };
            System.out.println(words[0] + " " + answer);
            System.out.flush();
        }
    }

    /**
     * The wall clock (all members are on one host), read {@code latency} late: the member-side delay of a slow store.
     */
    private static TimeSource slowClock(Duration latency) {
        return () -> {
            LockSupport.parkNanos(latency.toNanos());
            return System.currentTimeMillis() * 1_000_000L;
        };
    }

    private static int hammer(HazelcastCounterStore store, Policy policy, int threads, int attempts)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> counts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                counts.add(pool.submit(() -> {
                    int admitted = 0;
                    for (int i = 0; i < attempts; i++) {
                        admitted += store.execute(HOT_KEY, Command.decide(policy, 1, 0)).allowed() ? 1 : 0;
                    }
                    return admitted;
                }));
            }
            int total = 0;
            for (Future<Integer> count : counts) {
                total += count.get();
            }
            return total;
        } finally {
            pool.shutdownNow();
        }
    }

}
