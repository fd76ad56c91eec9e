package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.internal.Durations;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Runs key processors of the counters map ({@link SyncProcessor}, {@link CounterCommand}, {@link PeekProcessor},
 * ...) on keys held in one {@link Shard}, in one operation on the shard's owner: each processor sees its key as an
 * entry of its own (its counters, or none, and a time to live), exactly as on the counters map, and what they wrote is
 * kept at a new version only once all have run. The backup is one {@link ShardDelta} with every key changed. Answers
 * a {@link ShardAnswer}: each processor's result and its key's version, the owner's time and how many nodes (members
 * and clients) it sees. One shard of a key for every node: {@link #shardOf}.
 *
 * <p>Wire layout: the key count (int, 1 to {@link WireFormat#MAX_BATCH_REQUESTS}), then per key its name
 * (string) and processor (an object). Design: {@code docs/design/synchronised.md}.
 */
public final class ShardCall
        implements EntryProcessor<String, Shard, ShardAnswer>, IdentifiedDataSerializable, HazelcastInstanceAware {

    /**
     * How many shards hold the synchronised keys: few enough that one node's sync touches a handful per member, many
     * enough to spread them over the members. Part of the wire format: every node must map a key to the same shard.
     */
    public static final int SHARDS = 64;

    private List<String> keys;
    private List<EntryProcessor<String, CounterState, ?>> processors;
    private transient HazelcastInstance member;
    private transient @Nullable ShardDelta backup;

    ShardCall() {
    }

    /** @param processors one per key, in order; the keys distinct */
    public ShardCall(List<String> keys, List<? extends EntryProcessor<String, CounterState, ?>> processors) {
        if (keys.size() != processors.size() || keys.isEmpty() || keys.size() > WireFormat.MAX_BATCH_REQUESTS
                || new HashSet<>(keys).size() != keys.size()) {
            throw new IllegalArgumentException("a shard call carries 1 to " + WireFormat.MAX_BATCH_REQUESTS
                    + " distinct keys, each with its processor; got " + keys.size() + " keys, " + processors.size());
        }
        this.keys = List.copyOf(keys);
        this.processors = List.copyOf(processors);
    }

    /** The shard that holds {@code key}: the same on every node (String's hash is part of the language). */
    public static int shardOf(String key) {
        return Math.floorMod(key.hashCode(), SHARDS);
    }

    /** The key of the map entry that holds shard {@code shard}. */
    public static String shardKey(int shard) {
        return "shard-" + shard;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.member = instance;
    }

    @Override
    public ShardAnswer process(Map.Entry<String, Shard> entry) {
        long now = MemberClock.nanosOn(member);
        Shard shard = entry.getValue() == null ? new Shard() : entry.getValue();
        List<SlotEntry> seen = new ArrayList<>(keys.size());
        List<@Nullable Object> results = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            EntryProcessor<String, CounterState, ?> processor = processors.get(i);
            if (processor instanceof HazelcastInstanceAware aware) {
                aware.setHazelcastInstance(member);
            }
            SlotEntry slot = new SlotEntry(keys.get(i), shard.live(keys.get(i), now), now);
            results.add(processor.process(slot));
            seen.add(slot);
        }
        // Written only once every processor has run: one that throws leaves the shard as it was.
        ShardDelta delta = new ShardDelta();
        long[] versions = new long[keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            SlotEntry slot = seen.get(i);
            versions[i] = slot.commit(shard, delta);
        }
        shard.sweepIfDue(now, (key, version) -> delta.add(key, Optional.empty(), version));
        if (!delta.isEmpty() || entry.getValue() == null) {
            entry.setValue(shard);
            backup = delta;
        }
        return new ShardAnswer(now, nodesSeen(), versions, results);
    }

    /** The members and the clients connected to this member: every node that may decide on a key, or more. */
    private int nodesSeen() {
        return member.getCluster().getMembers().size() + member.getClientService().getConnectedClients().size();
    }

    @Override
    public @Nullable EntryProcessor<String, Shard, ShardAnswer> getBackupProcessor() {
        return backup == null ? null : backup.typed();
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        out.writeInt(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            out.writeString(keys.get(i));
            out.writeObject(processors.get(i));
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "shard call");
        int count = WireFormat.readCount(in, "keys", WireFormat.MAX_BATCH_REQUESTS, 2 * Integer.BYTES);
        List<String> readKeys = new ArrayList<>(count);
        List<EntryProcessor<String, CounterState, ?>> readProcessors = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            readKeys.add(in.readString());
            if (!(in.readObject() instanceof EntryProcessor<?, ?, ?> processor
                    && processor instanceof IdentifiedDataSerializable sluice
                    && sluice.getFactoryId() == SluiceSerializerHook.FACTORY_ID)) {
                throw new IOException("a shard call's key without a Sluice processor");
            }
            readProcessors.add((EntryProcessor<String, CounterState, ?>) processor);
        }
        keys = readKeys;
        processors = readProcessors;
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.SHARD_CALL;
    }

    /**
     * One key of a shard as a processor sees it: the key's counters (none when it has none, or they are back to full
     * capacity), which the processor may replace, with a time to live, or remove, and its over-admission.
     */
    private static final class SlotEntry implements ExtendedMapEntry<String, CounterState>, OverAdmission.Kept {
        private static final long FOREVER = Long.MAX_VALUE;

        private final String key;
        private final Optional<Shard.Slot> before;
        private final long now;
        private @Nullable CounterState value;
        private long expiresAtNanos;
        private OverAdmission overAdmission;
        private boolean changed;

        SlotEntry(String key, Optional<Shard.Slot> before, long now) {
            this.key = key;
            this.before = before;
            this.now = now;
            this.value = before.map(Shard.Slot::state).orElse(null);
            this.expiresAtNanos = before.map(Shard.Slot::expiresAtNanos).orElse(FOREVER);
            this.overAdmission = before.map(Shard.Slot::overAdmission).orElse(OverAdmission.NONE);
        }

        @Override
        public OverAdmission overAdmission() {
            return overAdmission;
        }

        @Override
        public void keep(OverAdmission measured) {
            overAdmission = measured;
        }

        @Override
        public String getKey() {
            return key;
        }

        @Override
        public @Nullable CounterState getValue() {
            return value;
        }

        @Override
        public @Nullable CounterState setValue(@Nullable CounterState newValue) {
            CounterState old = value;
            value = newValue;
            changed = true;
            return old;
        }

        @Override
        public @Nullable CounterState setValue(@Nullable CounterState newValue, long ttl, TimeUnit unit) {
            expiresAtNanos = ttl <= 0 ? FOREVER : Durations.saturatedAdd(now, unit.toNanos(ttl));
            return setValue(newValue);
        }

        @Override
        public @Nullable CounterState setValueWithoutChangingExpiryTime(@Nullable CounterState newValue) {
            return setValue(newValue);
        }

        /** Writes what the processor changed into {@code shard} and {@code delta}; the key's version after. */
        long commit(Shard shard, ShardDelta delta) {
            if (!changed) {
                return before.map(Shard.Slot::version).orElse(0L);
            }
            CounterState written = value;
            if (written == null) {
                long version = shard.drop(key);
                delta.add(key, Optional.empty(), version);
                return version;
            }
            Shard.Slot slot = shard.write(key, written, expiresAtNanos, overAdmission);
            delta.add(key, Optional.of(slot), slot.version());
            return slot.version();
        }
    }
}
