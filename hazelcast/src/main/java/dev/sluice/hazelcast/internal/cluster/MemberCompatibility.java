package dev.sluice.hazelcast.internal.cluster;

import com.hazelcast.config.InvalidConfigurationException;
import com.hazelcast.map.IMap;
import com.hazelcast.nio.serialization.HazelcastSerializationException;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.hazelcast.internal.wire.PeekProcessor;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Whether the members of a cluster can run Sluice's entry processors and read its wire format, found by one probe:
 * a peek (which writes nothing) on a key of the counters map. A member without the Sluice jars refuses to create the
 * map (its merge policy is a Sluice class) or to read the processor; one with a release that cannot read this one's
 * format version refuses the processor with a serialization error; a cluster that is not reachable now gives no answer
 * either way. Stateless.
 */
public final class MemberCompatibility {

    /** The probe's key. A peek writes nothing, so even a counter of this name would be left as it is. */
    private static final String PROBE_KEY = "sluice:compatibility-probe";

    private static final Policy PROBE_POLICY = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(1, Duration.ofSeconds(1)));

    /** The outcome of a probe. */
    public enum Verdict { COMPATIBLE, INCOMPATIBLE, UNKNOWN }

    /** A probe's verdict, with the cause when the members are incompatible or did not answer. */
    public record Result(Verdict verdict, String cause) {
    }

    private MemberCompatibility() {
    }

    /** Probes the owner of {@link #PROBE_KEY} in the map {@code map} gets, waiting at most {@code wait} for it. */
    public static Result probe(Supplier<IMap<String, CounterState>> map, Duration wait) {
        try {
            map.get().submitToKey(PROBE_KEY, new PeekProcessor(PROBE_POLICY, 0)).toCompletableFuture()
                    .get(wait.toNanos(), TimeUnit.NANOSECONDS);
            return new Result(Verdict.COMPATIBLE, "");
        } catch (ExecutionException e) {
            return classify(e.getCause());
        } catch (TimeoutException e) {
            return new Result(Verdict.UNKNOWN, "no answer within " + wait.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(Verdict.UNKNOWN, "interrupted");
        } catch (RuntimeException e) {
            return classify(e);
        }
    }

    /**
     * A serialization failure, or a map configuration the members cannot load (Sluice's merge policy), anywhere in the
     * chain means the members cannot run Sluice.
     */
    static Result classify(@Nullable Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof HazelcastSerializationException || cause instanceof ClassNotFoundException
                    || cause instanceof InvalidConfigurationException) {
                return new Result(Verdict.INCOMPATIBLE, cause.getClass().getName() + ": " + cause.getMessage());
            }
        }
        return new Result(Verdict.UNKNOWN, failure == null ? "no cause" : failure.getClass().getName());
    }
}
