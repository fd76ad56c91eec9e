package dev.sluice.hazelcast.internal.overrides;

import com.hazelcast.core.EntryAdapter;
import com.hazelcast.core.EntryEvent;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.MapEvent;
import dev.sluice.TimeSource;
import dev.sluice.hazelcast.internal.cluster.KeySecret;
import dev.sluice.store.InMemoryLimitOverrides;
import dev.sluice.store.LimitOverride;
import dev.sluice.store.LimitOverrides;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/*
 * Why a whole re-read rather than applying events one by one: overrides are few (an operator sets them by hand), so
 * reading the map costs little, and one path that makes the copy equal to the map cannot drift from it the way
 * applied events can (an event lost while a client reconnects, two events in another order). An event only makes the
 * re-read happen now instead of at the next tick. Sets and removals on this instance and re-reads take one lock, so a
 * re-read that began before a set cannot put the copy back to what it read.
 *
 * Why sealed: an override names a client's key, and every instance applies what the map holds. The entry's key is
 * the rule and a keyed hash of the client's key, its value the JSON sealed with the store's key secret: a reader of
 * the map learns neither, and an entry written without the secret (by anyone who can reach the cluster) does not open
 * and is skipped, so it lifts or tightens no limit. Only with a configured secret, though: the derived one is no
 * secret from whoever knows the map's name.
 */

/**
 * The overrides of a Hazelcast store: a map of the cluster, {@code <counters map>.overrides}, of JSON texts
 * ({@link LimitOverride#toJson()}, so no class of Sluice's travels) sealed with the store's {@link KeySecret}, by
 * target (the key hashed), each with a time-to-live until its expiry; and this instance's copy of it
 * ({@link InMemoryLimitOverrides}), which decisions read. The copy is read again from the map whenever an entry
 * listener tells of a change, and every {@link #REFRESH_INTERVAL} whatever the events, so every instance applies a
 * change within one interval. Thread-safe. See {@code docs/design/overrides.md}.
 */
public final class ClusterOverrides implements LimitOverrides, AutoCloseable {

    /** What the overrides map's name adds to the counters map's. */
    public static final String MAP_SUFFIX = ".overrides";

    /** How often the copy is read again from the map, events or not. */
    public static final Duration REFRESH_INTERVAL = Duration.ofMillis(500);

    /** How long {@link #close()} waits for a read under way, so that no listener is registered after it. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private static final System.Logger LOG = System.getLogger("dev.sluice.overrides");

    private final HazelcastInstance instance;
    private final String mapName;
    private final InMemoryLimitOverrides copy;
    private final KeySecret secret;
    /** How many entries the last read skipped, unreadable or not sealed with {@link #secret}. */
    private final AtomicInteger skipped = new AtomicInteger();
    private final Object lock = new Object();
    private final ScheduledExecutorService refresher;
    /** The entry listener's registration, once made: a client that is not connected yet cannot make it. */
    private volatile Optional<UUID> listener = Optional.empty();

    /**
     * Follows the map {@code mapName} of {@code instance}, instants read from {@code time} (nanoseconds since the Unix
     * epoch), entries sealed with {@code secret}. Touches the cluster only on the refresher's thread and when an
     * override is set or removed: a client not connected yet starts.
     */
    public ClusterOverrides(HazelcastInstance instance, String mapName, TimeSource time, KeySecret secret) {
        this.instance = instance;
        this.mapName = mapName;
        this.copy = new InMemoryLimitOverrides(time);
        this.secret = secret;
        this.refresher = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "sluice-overrides-" + mapName);
            thread.setDaemon(true);
            return thread;
        });
        long interval = REFRESH_INTERVAL.toNanos();
        refresher.scheduleWithFixedDelay(this::refreshQuietly, 0, interval, TimeUnit.NANOSECONDS);
    }

    /**
     * The map entry's key of {@code target}: {@code rule|} and the key's hash, or the rule id alone (ids have no
     * {@code |}).
     */
    private String entryKey(LimitOverride.Target target) {
        return target.key().map(key -> target.ruleId() + "|" + secret.hash(key)).orElse(target.ruleId());
    }

    /** The map; Hazelcast keeps its proxy, so asking again costs a lookup. */
    private IMap<String, String> map() {
        return instance.getMap(mapName);
    }

    @Override
    public LimitOverride set(LimitOverride override) {
        copy.requireLive(override);
        long ttlMillis = Math.max(1, Duration.between(copy.now(), override.expiresAt()).toMillis() + 1);
        String entryKey = entryKey(override.target());
        synchronized (lock) {
            map().set(entryKey, secret.seal(entryKey, override.toJson()), ttlMillis, TimeUnit.MILLISECONDS);
            return copy.set(override);
        }
    }

    @Override
    public Optional<LimitOverride> remove(LimitOverride.Target target, String removedBy) {
        synchronized (lock) {
            map().delete(entryKey(target));
            return copy.remove(target, removedBy);
        }
    }

    @Override
    public Instant now() {
        return copy.now();
    }

    @Override
    public List<LimitOverride> list() {
        return copy.list();
    }

    @Override
    public Active active() {
        return copy.active();
    }

    /** Reads the map into the copy now. */
    private void refresh() {
        synchronized (lock) {
            List<LimitOverride> read = new ArrayList<>();
            int unsealed = 0;
            for (Map.Entry<String, String> entry : map().entrySet()) {
                Optional<String> json = secret.open(entry.getKey(), entry.getValue());
                if (json.isEmpty()) {
                    unsealed++;
                    continue;
                }
                try {
                    read.add(LimitOverride.fromJson(json.get()));
                } catch (IllegalArgumentException e) {
                    LOG.log(System.Logger.Level.WARNING, "override entry of map {0} skipped: {1}", mapName,
                            e.getMessage());
                }
            }
            if (skipped.getAndSet(unsealed) != unsealed && unsealed > 0) {
                LOG.log(System.Logger.Level.WARNING, "Sluice: {0} override entries of map {1} are not sealed with "
                        + "this instance''s key secret and are not applied (set by an instance with another secret or "
                        + "an earlier release, or written by something else); set them again through this instance",
                        unsealed, mapName);
            }
            copy.replaceAll(read);
        }
    }

    private void refreshSoon() {
        try {
            refresher.execute(this::refreshQuietly);
        } catch (RejectedExecutionException closed) {
            // The store closed: nothing follows the map any more.
        }
    }

    /**
     * Registers the entry listener if not yet done, then refreshes, on the refresher thread: a failure (a client not
     * connected yet, a cluster unreachable) keeps the copy as it is, and the next tick tries again. Hazelcast keeps a
     * registered listener across a client's reconnections.
     */
    private void refreshQuietly() {
        try {
            if (listener.isEmpty()) {
                listener = Optional.of(map().addEntryListener(new EntryAdapter<String, String>() {
                    @Override
                    public void onEntryEvent(EntryEvent<String, String> event) {
                        refreshSoon();
                    }

                    @Override
                    public void onMapEvent(MapEvent event) {
                        refreshSoon();
                    }
                }, false));
            }
            refresh();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "overrides not read from the cluster; the copy stays: {0}",
                    e.toString());
        }
    }

    /** Stops following the map (waiting a few seconds at most for a read under way); the copy stays readable. */
    @Override
    public void close() {
        refresher.shutdownNow();
        try {
            refresher.awaitTermination(CLOSE_WAIT.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            listener.ifPresent(registration -> map().removeEntryListener(registration));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "override listener not removed (the instance is gone): {0}",
                    e.toString());
        }
    }

    @Override
    public String toString() {
        return "ClusterOverrides[" + mapName + "]";
    }
}
