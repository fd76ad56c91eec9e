package dev.sluice.hazelcast;

import com.hazelcast.map.IMap;
import dev.sluice.hazelcast.internal.cluster.KeySecret;
import dev.sluice.hazelcast.internal.wire.WriteStateProcessor;
import dev.sluice.store.SharedEntries;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link SharedEntries} in a Hazelcast map of strings (no Sluice class on the wire), each entry with its own
 * time-to-live (in whole seconds, at least the one asked for), so the entries of a node that stopped writing leave
 * the map on their own. Values are sealed with the store's key secret ({@link KeySecret#seal}): the console's
 * snapshots name the keys it limited most, which a reader of the map must not learn; a value that does not open
 * (another secret's, an earlier release's, a forgery) is left out of {@link #entries()}, said at WARNING when their
 * number changes. Writes are sent without waiting; a read that fails says so. Thread-safe.
 */
final class ClusterSharedEntries implements SharedEntries {

    private static final System.Logger LOG = System.getLogger(ClusterSharedEntries.class.getName());

    private final IMap<String, String> map;
    private final KeySecret secret;
    /** How many entries the last read left out. */
    private final AtomicInteger leftOut = new AtomicInteger();

    ClusterSharedEntries(IMap<String, String> map, KeySecret secret) {
        this.map = map;
        this.secret = secret;
    }

    @Override
    public void put(String key, String value, Duration timeToLive) {
        try {
            // Rounded up to whole seconds plus one, as the counters' are: Hazelcast keeps expiry times in seconds, and
            // a time to live of a second or two could otherwise end before it has run (a console's entry then left
            // the map between two of its writes).
            map.setAsync(key, secret.seal(key, value), WriteStateProcessor.ttlSeconds(timeToLive.toNanos()),
                    TimeUnit.SECONDS);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "shared entry not written to map " + map.getName(), e);
        }
    }

    @Override
    public Map<String, String> entries() {
        Map<String, String> read;
        try {
            read = new HashMap<>(map);
        } catch (RuntimeException e) {
            throw new IllegalStateException("shared entries not read from map " + map.getName(), e);
        }
        Map<String, String> opened = new HashMap<>();
        read.forEach((key, sealed) -> secret.open(key, sealed).ifPresent(text -> opened.put(key, text)));
        int skipped = read.size() - opened.size();
        if (leftOut.getAndSet(skipped) != skipped && skipped > 0) {
            LOG.log(System.Logger.Level.WARNING, "Sluice: " + skipped + " entries of map " + map.getName() + " are "
                    + "not sealed with this instance's key secret and are left out (written by an instance with "
                    + "another secret or an earlier release, or by something else)");
        }
        return opened;
    }
}
