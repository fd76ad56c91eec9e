package dev.sluice.hazelcast.internal.permits;

import com.hazelcast.nio.serialization.IdentifiedDataSerializable;

/**
 * The empty instances of this package's wire types, for the serializer hook to read into; their constructors stay
 * package-private. Stateless.
 */
public final class PermitSerializables {

    private PermitSerializables() {
    }

    public static IdentifiedDataSerializable holders() {
        return new PermitHolders();
    }

    public static IdentifiedDataSerializable answer() {
        return new PermitAnswer();
    }

    public static IdentifiedDataSerializable acquire() {
        return new AcquirePermitProcessor();
    }

    public static IdentifiedDataSerializable release() {
        return new ReleasePermitProcessor();
    }

    public static IdentifiedDataSerializable freeNode() {
        return new FreeNodeProcessor();
    }

    public static IdentifiedDataSerializable write() {
        return new WritePermitsProcessor();
    }
}
