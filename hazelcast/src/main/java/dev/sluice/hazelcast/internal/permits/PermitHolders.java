package dev.sluice.hazelcast.internal.permits;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.hazelcast.internal.wire.SluiceSerializerHook;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.UUID;

/**
 * One key's permit holders, in the order they took their permits: per holder its node's UUID, the permit's number on
 * that node, and the member time (nanoseconds) at which its maximum hold ends. Immutable once read or built; each
 * change makes a new one. Wire layout: the version, then the holder count and four longs each.
 */
public final class PermitHolders implements IdentifiedDataSerializable {

    /** The most holders a key may have: {@link dev.sluice.ConcurrencyLimit#MAX_PERMITS}. */
    static final int MAX_HOLDERS = (int) dev.sluice.ConcurrencyLimit.MAX_PERMITS;
    private static final int LONGS_EACH = 4;
    static final PermitHolders NONE = new PermitHolders(new long[0]);

    /** msb, lsb, permit number, end of hold; for each holder. */
    private long[] holders;

    PermitHolders() {
        this.holders = new long[0];
    }

    private PermitHolders(long[] holders) {
        this.holders = holders;
    }

    int size() {
        return holders.length / LONGS_EACH;
    }

    boolean isEmpty() {
        return holders.length == 0;
    }

    /** When the earliest hold ends (holds differ with a lease shorter than the limit's); only for a non-empty set. */
    long firstEnd() {
        long first = Long.MAX_VALUE;
        for (int i = 3; i < holders.length; i += LONGS_EACH) {
            first = Math.min(first, holders[i]);
        }
        return first;
    }

    /** When the latest hold ends; only for a non-empty set. */
    long lastEnd() {
        long last = Long.MIN_VALUE;
        for (int i = 3; i < holders.length; i += LONGS_EACH) {
            last = Math.max(last, holders[i]);
        }
        return last;
    }

    /** These holders less those whose hold has ended by {@code now}. */
    PermitHolders withoutEnded(long now) {
        return keeping((msb, lsb, number, end) -> end > now);
    }

    /** These holders and one more, at the end. */
    PermitHolders with(UUID node, long number, long end) {
        long[] more = Arrays.copyOf(holders, holders.length + LONGS_EACH);
        more[holders.length] = node.getMostSignificantBits();
        more[holders.length + 1] = node.getLeastSignificantBits();
        more[holders.length + 2] = number;
        more[holders.length + 3] = end;
        return new PermitHolders(more);
    }

    /** These holders less the permit {@code number} of {@code node}; this when it is not held. */
    PermitHolders without(UUID node, long number) {
        long msb = node.getMostSignificantBits();
        long lsb = node.getLeastSignificantBits();
        return keeping((m, l, n, end) -> m != msb || l != lsb || n != number);
    }

    /** These holders less every permit of {@code node}. */
    PermitHolders withoutNode(UUID node) {
        long msb = node.getMostSignificantBits();
        long lsb = node.getLeastSignificantBits();
        return keeping((m, l, n, end) -> m != msb || l != lsb);
    }

    /** Whether a holder is kept. */
    @FunctionalInterface
    private interface Kept {
        boolean test(long msb, long lsb, long number, long end);
    }

    private PermitHolders keeping(Kept kept) {
        long[] left = new long[holders.length];
        int length = 0;
        for (int i = 0; i < holders.length; i += LONGS_EACH) {
            if (kept.test(holders[i], holders[i + 1], holders[i + 2], holders[i + 3])) {
                System.arraycopy(holders, i, left, length, LONGS_EACH);
                length += LONGS_EACH;
            }
        }
        return length == holders.length ? this : new PermitHolders(Arrays.copyOf(left, length));
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        out.writeInt(size());
        for (long value : holders) {
            out.writeLong(value);
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "permit holders");
        int count = in.readInt();
        if (count < 0 || count > MAX_HOLDERS
                || in instanceof InputStream stream && (long) count * LONGS_EACH * Long.BYTES > stream.available()) {
            throw new IOException("read " + count + " permit holders: 0 to " + MAX_HOLDERS + " fit, and no more than"
                    + " the bytes that remain");
        }
        long[] read = new long[count * LONGS_EACH];
        for (int i = 0; i < read.length; i++) {
            read[i] = in.readLong();
        }
        holders = read;
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.PERMIT_HOLDERS;
    }

    @Override
    public String toString() {
        return "PermitHolders[" + size() + "]";
    }
}
