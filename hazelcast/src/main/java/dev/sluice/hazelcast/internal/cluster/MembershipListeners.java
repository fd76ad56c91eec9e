package dev.sluice.hazelcast.internal.cluster;

import com.hazelcast.core.HazelcastInstance;
import java.util.UUID;

/** Removing a membership listener from an instance that may be shutting down. Stateless. */
final class MembershipListeners {

    private MembershipListeners() {
    }

    /** Removes {@code listener}; an instance shutting down follows nothing any more, so its refusal is ignored. */
    static void remove(HazelcastInstance instance, UUID listener) {
        try {
            instance.getCluster().removeMembershipListener(listener);
        } catch (RuntimeException e) {
            // The instance is shutting down: nothing is followed any more.
        }
    }
}
