package dev.sluice.hazelcast.internal.overrides;

import com.hazelcast.core.EntryAdapter;
import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.IMap;
import com.hazelcast.map.MapEvent;
import dev.sluice.TimeSource;
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

/*
 * Why a whole re-read rather than applying events one by one: overrides are few (an operator sets them by hand), so
 * reading the map costs little, and one path that makes the copy equal to the map cannot drift from it the way
 * applied events can (an event lost while a client reconnects, two events in another order). An event only makes the
 * re-read happen now instead of at the next tick. Sets and removals on this instance and re-reads take one lock, so a
 * re-read that began before a set cannot put the copy back to what it read.
 */

/**
 * The overrides of a Hazelcast store: a map of the cluster, {@code <counters map>.overrides}, of JSON texts
 * ({@link LimitOverride#toJson()}, so no class of Sluice's travels) by target, each with a time-to-live until its
 * expiry; and this instance's copy of it ({@link InMemoryLimitOverrides}), which decisions read. The copy is read
 * again from the map whenever an entry listener tells of a change, and every {@link #REFRESH_INTERVAL} whatever the
 * events, so every instance applies a change within one interval. Thread-safe. See {@code docs/design/overrides.md}.
 */
public final class ClusterOverrides implements LimitOverrides, AutoCloseable {

    /** What the overrides map's name adds to the counters map's. */
    public static final String MAP_SUFFIX = ".overrides";

    /** How often the copy is read again from the map, events or not. */
    public static final Duration REFRESH_INTERVAL = Duration.ofMillis(500);

    private static final System.Logger LOG = System.getLogger("dev.sluice.overrides");

    private final IMap<String, String> map;
    private final InMemoryLimitOverrides copy;
    private final Object lock = new Object();
    private final ScheduledExecutorService refresher;
    private final UUID listener;

    /** Follows {@code map}, instants read from {@code time} (nanoseconds since the Unix epoch). */
    public ClusterOverrides(IMap<String, String> map, TimeSource time) {
        this.map = map;
        this.copy = new InMemoryLimitOverrides(time);
        this.refresher = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "sluice-overrides-" + map.getName());
            thread.setDaemon(true);
            return thread;
        });
        this.listener = map.addEntryListener(new EntryAdapter<String, String>() {
            @Override
            public void onEntryEvent(EntryEvent<String, String> event) {
                refreshSoon();
            }

            @Override
            public void onMapEvent(MapEvent event) {
                refreshSoon();
            }
        }, false);
        long interval = REFRESH_INTERVAL.toNanos();
        refresher.scheduleWithFixedDelay(this::refreshQuietly, 0, interval, TimeUnit.NANOSECONDS);
    }

    /** The map entry's key of {@code target}: {@code rule|key}, or the rule id alone (ids have no {@code |}). */
    static String entryKey(LimitOverride.Target target) {
        return target.key().map(key -> target.ruleId() + "|" + key).orElse(target.ruleId());
    }

    @Override
    public LimitOverride set(LimitOverride override) {
        copy.requireLive(override);
        long ttlMillis = Math.max(1, Duration.between(copy.now(), override.expiresAt()).toMillis() + 1);
        synchronized (lock) {
            map.set(entryKey(override.target()), override.toJson(), ttlMillis, TimeUnit.MILLISECONDS);
            return copy.set(override);
        }
    }

    @Override
    public Optional<LimitOverride> remove(LimitOverride.Target target, String removedBy) {
        synchronized (lock) {
            map.delete(entryKey(target));
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
    public void refresh() {
        synchronized (lock) {
            List<LimitOverride> read = new ArrayList<>();
            for (Map.Entry<String, String> entry : map.entrySet()) {
                try {
                    read.add(LimitOverride.fromJson(entry.getValue()));
                } catch (IllegalArgumentException e) {
                    LOG.log(System.Logger.Level.WARNING, "override entry of map {0} skipped: {1}", map.getName(),
                            e.getMessage());
                }
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

    /** A refresh on the refresher thread: a failure (cluster unreachable) keeps the copy; the next tick retries. */
    private void refreshQuietly() {
        try {
            refresh();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "overrides not read from the cluster; the copy stays: {0}",
                    e.toString());
        }
    }

    /** Stops following the map; the copy stays readable. */
    @Override
    public void close() {
        refresher.shutdownNow();
        try {
            map.removeEntryListener(listener);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "override listener not removed (the instance is gone): {0}",
                    e.toString());
        }
    }

    @Override
    public String toString() {
        return "ClusterOverrides[" + map.getName() + "]";
    }
}
