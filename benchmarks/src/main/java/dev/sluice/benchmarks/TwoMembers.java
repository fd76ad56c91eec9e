package dev.sluice.benchmarks;

import dev.sluice.hazelcast.HazelcastCounterStore;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A two-member cluster and the store on the member in this JVM, shared by a benchmark's threads: the other member in
 * this JVM or, with {@code topology=two-jvms}, in a process of its own. Ready once the store sends the members every
 * type this release has (concurrency permits, settles by id), which it does once it has heard that every member reads
 * them (it asks as it starts).
 */
@State(Scope.Benchmark)
public class TwoMembers {
    @Param({"one-jvm", "two-jvms"})
    public String topology;

    BenchmarkCluster cluster;
    HazelcastCounterStore store;

    @Setup
    public void start() throws Exception {
        cluster = BenchmarkCluster.start(topology.equals("two-jvms"));
        store = HazelcastCounterStore.using(cluster.local());
        BenchmarkCluster.await("the members to read the settle's wire format",
                () -> BenchmarkCluster.settlesById(store));
    }

    @TearDown
    public void stop() throws Exception {
        store.close();
        cluster.close();
    }
}
