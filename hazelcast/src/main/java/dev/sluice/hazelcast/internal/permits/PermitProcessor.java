package dev.sluice.hazelcast.internal.permits;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.hazelcast.internal.wire.MemberClock;
import dev.sluice.hazelcast.internal.wire.SluiceSerializerHook;
import dev.sluice.hazelcast.internal.wire.WriteStateProcessor;
import java.io.IOException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * What the permit processors share: the member time they read on the key's owner ({@link MemberClock}), and how a
 * key's holders are stored: with a time to live until the latest hold ends, or removed once none is held. Hazelcast
 * injects the member's instance before {@code process} runs.
 */
abstract class PermitProcessor<R> implements EntryProcessor<String, PermitHolders, R>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    private transient @Nullable HazelcastInstance member;

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.member = instance;
    }

    /** The member's current time: its {@code TimeSource} if given one, else Hazelcast's cluster time. */
    long memberNanos() {
        HazelcastInstance on = member;
        if (on == null) {
            throw new IllegalStateException("Hazelcast injects the member before a processor runs");
        }
        return MemberClock.nanosOn(on);
    }

    /** The entry's holders; none for an absent entry. */
    static PermitHolders holders(Map.Entry<String, PermitHolders> entry) {
        PermitHolders current = entry.getValue();
        return current == null ? PermitHolders.NONE : current;
    }

    /**
     * Stores {@code holders} in {@code entry}, living until their latest hold ends, or removes the entry when none is
     * held; the seconds to live (0 for a removal), for the backup.
     */
    static long store(Map.Entry<String, PermitHolders> entry, PermitHolders holders, long now) {
        long ttlSeconds = holders.isEmpty() ? 0 : WriteStateProcessor.ttlSeconds(Math.max(0, holders.lastEnd() - now));
        write(entry, holders, ttlSeconds);
        return ttlSeconds;
    }

    /** Writes {@code holders} living {@code ttlSeconds}, or removes the entry when none is held: primary and backup. */
    static void write(Map.Entry<String, PermitHolders> entry, PermitHolders holders, long ttlSeconds) {
        if (holders.isEmpty()) {
            entry.setValue(null);
        } else {
            ((ExtendedMapEntry<String, PermitHolders>) entry).setValue(holders, ttlSeconds, TimeUnit.SECONDS);
        }
    }

    /** Writes a node's UUID as two longs, as every permit type carries it. */
    static void writeNode(ObjectDataOutput out, UUID node) throws IOException {
        out.writeLong(node.getMostSignificantBits());
        out.writeLong(node.getLeastSignificantBits());
    }

    static UUID readNode(ObjectDataInput in) throws IOException {
        return new UUID(in.readLong(), in.readLong());
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }
}
