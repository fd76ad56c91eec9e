package dev.sluice.hazelcast.internal.wire;

import dev.sluice.algorithm.Policy;
import java.util.Optional;

/**
 * Values of the shards' types built with this package's own parts, for the golden bytes of {@code WireFormatTest}: a
 * key written with the counters a merge left and the over-admission it measured.
 */
public final class WireSamples {

    private WireSamples() {
    }

    /** A shard holding {@code key} once written, after hits took it from {@code before} to {@code after} at now. */
    public static Shard shard(String key, Policy policy, CounterState before, CounterState after, long nowNanos,
                              long expiresAtNanos) {
        Shard shard = new Shard();
        shard.write(key, after, expiresAtNanos, measured(policy, before, after, nowNanos));
        return shard;
    }

    /** A backup writing {@code key} at {@code version} as {@link #shard} does, and dropping {@code dropped}. */
    public static ShardDelta delta(String key, Policy policy, CounterState before, CounterState after, long nowNanos,
                                   long expiresAtNanos, long version, String dropped) {
        ShardDelta delta = new ShardDelta();
        delta.add(key, Optional.of(new Shard.Slot(after, version, expiresAtNanos,
                measured(policy, before, after, nowNanos))), version);
        delta.add(dropped, Optional.empty(), version + 1);
        return delta;
    }

    private static OverAdmission measured(Policy policy, CounterState before, CounterState after, long nowNanos) {
        return OverAdmission.NONE.measure(policy, before.state(), after.state(), nowNanos).after();
    }
}
