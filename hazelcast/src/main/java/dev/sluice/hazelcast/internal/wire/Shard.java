package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * The value of one entry of the synchronised keys' map: the counters of every synchronised key that hashes to this
 * shard ({@link ShardCall#shardOf}), each a {@link CounterState} with the version it was written at, the owner time
 * at which it is back to full capacity (and may be dropped), and how far it has gone past its limits
 * ({@link OverAdmission}). One entry holds many keys so that the owner merges a
 * node's hits with one operation and one backup per shard, not per key ({@code docs/design/synchronised.md}).
 *
 * <p>Not thread-safe: the map is stored as an object ({@code OBJECT} in-memory format) and changed in place, only by
 * {@link ShardCall} and {@link ShardDelta} on the partition thread that owns the entry. Versions grow with every
 * change of any key of the shard, so that a node never adopts an answer older than the one it holds. Wire layout
 * the version of the last change (long), the owner time of the next sweep (long), the key count (int),
 * then per key its name (string), version (long) and slot: expiry (long), {@link CounterState} and
 * {@link OverAdmission} (each written in place).
 */
public final class Shard implements IdentifiedDataSerializable {

    /** How often, in owner time, a shard drops the keys whose counters are back to full capacity. */
    static final long SWEEP_EVERY_NANOS = 10_000_000_000L;

    private final HashMap<String, Slot> slots = new HashMap<>();
    private long version;
    private long sweepAtNanos;

    public Shard() {
    }

    /** One key's counters, as written at {@code version}; dropped from {@code expiresAtNanos} on (owner time). */
    record Slot(CounterState state, long version, long expiresAtNanos, OverAdmission overAdmission) {

        /** Wire layout: see the class comment (the version is written before). */
        void writeData(ObjectDataOutput out) throws IOException {
            out.writeLong(expiresAtNanos);
            state.writeData(out);
            overAdmission.writeData(out);
        }

        static Slot readData(ObjectDataInput in, long version) throws IOException {
            long expiresAtNanos = in.readLong();
            CounterState state = new CounterState();
            state.readData(in);
            return new Slot(state, version, expiresAtNanos, OverAdmission.readData(in));
        }
    }

    /** The key's slot, unless it has none or its counters are back to full capacity at {@code now}. */
    Optional<Slot> live(String key, long now) {
        Slot slot = slots.get(key);
        return slot == null || slot.expiresAtNanos() <= now ? Optional.empty() : Optional.of(slot);
    }

    /** Writes the key's counters and over-admission at the next version; returns the slot written. */
    Slot write(String key, CounterState state, long expiresAtNanos, OverAdmission overAdmission) {
        version++;
        Slot slot = new Slot(state, version, expiresAtNanos, overAdmission);
        slots.put(key, slot);
        return slot;
    }

    /** Drops the key; returns the version of the change. */
    long drop(String key) {
        version++;
        slots.remove(key);
        return version;
    }

    /** A backup's copy of a change the owner made at {@code atVersion}: the slot as given, or none. */
    void copy(String key, Optional<Slot> slot, long atVersion) {
        version = Math.max(version, atVersion);
        slot.ifPresentOrElse(written -> slots.put(key, written), () -> slots.remove(key));
    }

    /**
     * When a sweep is due at {@code now}: drops every key whose counters are back to full capacity, telling
     * {@code dropped} each one, and schedules the next sweep. Returns whether it swept.
     */
    boolean sweepIfDue(long now, BiConsumer<String, Long> dropped) {
        if (now < sweepAtNanos) {
            return false;
        }
        sweepAtNanos = now + SWEEP_EVERY_NANOS;
        Iterator<Map.Entry<String, Slot>> each = slots.entrySet().iterator();
        while (each.hasNext()) {
            Map.Entry<String, Slot> slot = each.next();
            if (slot.getValue().expiresAtNanos() <= now) {
                each.remove();
                dropped.accept(slot.getKey(), ++version);
            }
        }
        return true;
    }

    /** The keys held, expired ones included until the next sweep. */
    public int size() {
        return slots.size();
    }

    /**
     * A shard at least as restrictive as both copies of one shard that were changed apart (the two sides of a healed
     * split brain): per key the more consumed counters ({@link CounterState#moreConsumed}), and versions above both
     * copies' so that every node adopts the merged counters.
     */
    public static Shard moreConsumed(Shard a, Shard b) {
        Shard merged = new Shard();
        merged.version = Math.max(a.version, b.version);
        merged.sweepAtNanos = Math.min(a.sweepAtNanos, b.sweepAtNanos);
        HashMap<String, Slot> keys = new HashMap<>(a.slots);
        b.slots.forEach((key, slot) -> keys.merge(key, slot, (x, y) -> {
            CounterState state = CounterState.moreConsumed(x.state(), y.state());
            return new Slot(state == null ? x.state() : state, 0, Math.max(x.expiresAtNanos(), y.expiresAtNanos()),
                    OverAdmission.higher(x.overAdmission(), y.overAdmission()));
        }));
        keys.forEach((key, slot) -> merged.write(key, slot.state(), slot.expiresAtNanos(), slot.overAdmission()));
        return merged;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        out.writeLong(version);
        out.writeLong(sweepAtNanos);
        out.writeInt(slots.size());
        for (Map.Entry<String, Slot> slot : slots.entrySet()) {
            out.writeString(slot.getKey());
            out.writeLong(slot.getValue().version());
            slot.getValue().writeData(out);
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "shard");
        version = in.readLong();
        sweepAtNanos = in.readLong();
        int count = in.readInt();
        if (count < 0) {
            throw new IOException("a shard of " + count + " keys");
        }
        for (int i = 0; i < count; i++) {
            String key = in.readString();
            slots.put(key, Slot.readData(in, in.readLong()));
        }
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.SHARD;
    }
}
