package dev.sluice.hazelcast;

import com.hazelcast.map.IMap;
import dev.sluice.Limit;
import dev.sluice.Policy;
import dev.sluice.algorithm.Algorithm;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * An application process for {@link TwoProcessTest}: starts an embedded member on loopback, waits until the whole
 * cluster has joined, spends its attempts on one shared key, prints {@code admitted=<count>}, and waits for the
 * other nodes to finish before leaving (so no member leaves while others still count).
 *
 * <p>Arguments: cluster name, own port, cluster size, attempts, then the ports of every member.
 */
public final class SharedLimitNode {

    static final Policy POLICY = Policy.of(Algorithm.SLIDING_WINDOW_LOG, Limit.of(25, Duration.ofHours(1)));
    static final String KEY = "shared-across-processes";

    private SharedLimitNode() {
    }

    public static void main(String[] args) {
        String clusterName = args[0];
        int port = Integer.parseInt(args[1]);
        int clusterSize = Integer.parseInt(args[2]);
        int attempts = Integer.parseInt(args[3]);
        List<Integer> ports = Arrays.stream(args).skip(4).map(Integer::valueOf).toList();

        try (HazelcastCounterStore store = ClusterSupport.member(clusterName, port, ports).build()) {
            ClusterSupport.awaitClusterSize(store.instance(), clusterSize);
            int admitted = 0;
            for (int i = 0; i < attempts; i++) {
                admitted += store.apply(KEY, POLICY, 1, 0).allowed() ? 1 : 0;
            }
            System.out.println("admitted=" + admitted);
            System.out.flush();
            IMap<String, Boolean> finished = store.instance().getMap("finished");
            finished.put(store.instance().getCluster().getLocalMember().getUuid().toString(), true);
            ClusterSupport.await(() -> finished.size() == clusterSize, Duration.ofSeconds(60),
                    "every node to finish");
        }
    }
}
