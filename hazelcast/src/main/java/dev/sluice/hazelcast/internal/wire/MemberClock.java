package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.TimeSource;
import java.util.Optional;

/**
 * The time decisions read on a member: the {@link TimeSource} in its user context under {@link #TIME_SOURCE_KEY} when
 * it has one (tests, simulations), else Hazelcast's cluster time, in nanoseconds. Read on the key's owner, never on
 * the caller; see {@code docs/design/wire-format.md}. Stateless and thread-safe.
 */
public final class MemberClock {

    /** The user-context key of a member's {@link TimeSource}; every member must then share one timeline. */
    public static final String TIME_SOURCE_KEY = "dev.sluice.timeSource";

    private static final long NANOS_PER_MILLI = 1_000_000L;

    private MemberClock() {
    }

    /** The time source {@code instance} was given, if it is a member that has one (a client has no user context). */
    public static Optional<TimeSource> given(HazelcastInstance instance) {
        return instance.getLocalEndpoint() instanceof Member
                && instance.getConfig().getUserContext().get(TIME_SOURCE_KEY) instanceof TimeSource time
                ? Optional.of(time) : Optional.empty();
    }

    /** Hazelcast's cluster time as seen by {@code instance}, in nanoseconds (millisecond resolution). */
    public static long clusterNanos(HazelcastInstance instance) {
        return instance.getCluster().getClusterTime() * NANOS_PER_MILLI;
    }

    /** The time decisions read on {@code member}. */
    public static long nanosOn(HazelcastInstance member) {
        if (member.getUserContext().get(TIME_SOURCE_KEY) instanceof TimeSource time) {
            return time.nanos();
        }
        return clusterNanos(member);
    }

    /**
     * How much later than {@link #nanosOn} the true time on {@code member} may be: 1 ms for Hazelcast's cluster time,
     * which has millisecond resolution; 0 for a {@link TimeSource} of the user context.
     */
    static long clockErrorOn(HazelcastInstance member) {
        return member.getUserContext().get(TIME_SOURCE_KEY) instanceof TimeSource ? 0 : NANOS_PER_MILLI;
    }
}
