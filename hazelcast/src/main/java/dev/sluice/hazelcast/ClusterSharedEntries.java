package dev.sluice.hazelcast;

import com.hazelcast.map.IMap;
import dev.sluice.store.SharedEntries;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@link SharedEntries} in a Hazelcast map of strings (no Sluice class on the wire), each entry with its own
 * time-to-live, so the entries of a node that stopped writing leave the map on their own. Writes are sent without
 * waiting; a read that fails says so. Thread-safe.
 */
final class ClusterSharedEntries implements SharedEntries {

    private static final System.Logger LOG = System.getLogger(ClusterSharedEntries.class.getName());

    private final IMap<String, String> map;

    ClusterSharedEntries(IMap<String, String> map) {
        this.map = map;
    }

    @Override
    public void put(String key, String value, Duration timeToLive) {
        try {
            map.setAsync(key, value, Math.max(1, timeToLive.toMillis()), TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "shared entry not written to map " + map.getName(), e);
        }
    }

    @Override
    public Map<String, String> entries() {
        try {
            return new HashMap<>(map);
        } catch (RuntimeException e) {
            throw new IllegalStateException("shared entries not read from map " + map.getName(), e);
        }
    }
}
