package dev.sluice.hazelcast;

import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.config.MergePolicyConfig;
import dev.sluice.hazelcast.internal.calls.ProcessorDecider;
import dev.sluice.hazelcast.internal.cluster.KeySecret;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * The counters map of a {@link HazelcastCounterStore}: its name, its synchronous backups, how many keys one member
 * holds, the secret its keys are hashed with ({@link Builder#keySecret}), and how decisions travel. Every way to reach
 * a cluster takes these: a member configures its map by them, a client and an existing instance add that map
 * configuration to the running cluster when it has none for the name. Immutable and thread-safe; built by
 * {@link #builder()}, which checks every value.
 */
public final class StoreOptions {

    /** Synchronous backups of each key unless set: 1. */
    public static final int DEFAULT_BACKUP_COUNT = 1;

    /** Keys one member holds unless set: 1,000,000. */
    public static final int DEFAULT_MAX_KEYS_PER_MEMBER = 1_000_000;

    /** The most decisions one batched call carries unless set: 128. */
    public static final int DEFAULT_MAX_BATCH = 128;

    /** How long a token bucket's or GCRA's slice stays valid unless set: 10 ms. */
    public static final Duration DEFAULT_LEASE_LIFETIME = Duration.ofMillis(10);

    /** The longest lease lifetime: the bound on a token bucket's or GCRA's excess grows with it. */
    public static final Duration MAX_LEASE_LIFETIME = Duration.ofMillis(50);

    /** The largest slice a node asks for unless set: 64 permits. */
    public static final int DEFAULT_MAX_SLICE = 64;

    /** How often a node sends the hits it admitted on synchronised keys to their owners, unless set: 20 ms. */
    public static final Duration DEFAULT_SYNC_INTERVAL = Duration.ofMillis(20);

    /** The longest sync interval: how long the hits this node admitted may wait at most before they travel. */
    public static final Duration MAX_SYNC_INTERVAL = Duration.ofSeconds(1);

    /** The rate (permits per second, on one node) above which a key is hot and leased, unless set: 1,000. */
    public static final int DEFAULT_HOT_KEY_RATE = 1_000;

    /** How long a member keeps the concurrency permits of a client disconnected from it, unless set: 30 s. */
    public static final Duration DEFAULT_CLIENT_GRACE = Duration.ofSeconds(30);

    /** The name of the counters map unless {@link Builder#mapName} says otherwise. */
    public static final String DEFAULT_MAP_NAME = "sluice-counters";

    /** The most keys one node follows for leasing at once. */
    static final int DEFAULT_MAX_LEASED_KEYS = 10_000;
    /** The most synchronised keys one node keeps a view of unless set: 100,000 (others are decided on their owners). */
    public static final int DEFAULT_MAX_SYNCED_KEYS = 100_000;

    /** Hazelcast's bound on synchronous plus asynchronous backups. */
    private static final int MAX_BACKUP_COUNT = MapConfig.MAX_BACKUP_COUNT;

    private static final StoreOptions DEFAULTS = builder().build();

    /** What the store does when the cluster's members cannot run Sluice's entry processors. */
    public enum OnIncompatibleMembers {
        /**
         * Refuse: a store that finds such members when it starts fails to start; one that finds them later (a client
         * reconnecting to other members) fails every call, so its failure policy decides, loudly.
         */
        REFUSE,
        /**
         * Decide on the callers instead, with compare-and-set writes of plain values that any member can hold (see
         * {@link CompareAndSetCounterStore}): exact, slower, and counting afresh in a map of its own.
         */
        COMPARE_AND_SET
    }

    private final String mapName;
    private final int backupCount;
    private final int maxKeysPerMember;
    private final OnIncompatibleMembers onIncompatibleMembers;
    private final boolean batching;
    private final int maxBatch;
    private final boolean leasing;
    private final Duration leaseLifetime;
    private final int maxSlice;
    private final int hotKeyRate;
    private final Duration syncInterval;
    private final OptionalLong syncBudget;
    private final int maxSyncedKeys;
    private final Duration clientGrace;
    private final KeySecret keySecret;

    private StoreOptions(Builder builder) {
        this.mapName = builder.mapName;
        this.backupCount = builder.backupCount;
        this.maxKeysPerMember = builder.maxKeysPerMember;
        this.onIncompatibleMembers = builder.onIncompatibleMembers;
        this.batching = builder.batching;
        this.maxBatch = builder.maxBatch;
        this.leasing = builder.leasing;
        this.leaseLifetime = builder.leaseLifetime;
        this.maxSlice = builder.maxSlice;
        this.hotKeyRate = builder.hotKeyRate;
        this.syncInterval = builder.syncInterval;
        this.syncBudget = builder.syncBudget;
        this.maxSyncedKeys = builder.maxSyncedKeys;
        this.clientGrace = builder.clientGrace;
        String secret = builder.keySecret;
        this.keySecret = secret != null ? KeySecret.configured(secret) : KeySecret.derived(mapName);
    }

    /** The map {@value #DEFAULT_MAP_NAME}, with the default backups and bound. */
    public static StoreOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The name of the counters map. */
    public String mapName() {
        return mapName;
    }

    /** Synchronous backups of each key, 0 to 6. */
    public int backupCount() {
        return backupCount;
    }

    /** The most keys one member holds before evicting the least recently used, at least 1. */
    public int maxKeysPerMember() {
        return maxKeysPerMember;
    }

    /** What the store does when the members cannot run Sluice's processors; {@code REFUSE} unless set. */
    public OnIncompatibleMembers onIncompatibleMembers() {
        return onIncompatibleMembers;
    }

    /**
     * Whether decisions on one key that arrive while a call on that key is in flight wait and go together in the next
     * call (see {@link HazelcastCounterStore}); true unless set.
     */
    public boolean batching() {
        return batching;
    }

    /** The most decisions one batched call carries, 1 to 4,096. */
    public int maxBatch() {
        return maxBatch;
    }

    /**
     * Whether this node grants hot keys of policies that ask for it ({@link dev.sluice.algorithm.Policy#leased()})
     * from slices taken from each key's owner; false unless set. Bounds: {@code docs/design/leasing.md}.
     */
    public boolean leasing() {
        return leasing;
    }

    /** How long a token bucket's or GCRA's slice stays valid, and the span over which key traffic is counted. */
    public Duration leaseLifetime() {
        return leaseLifetime;
    }

    /** The largest slice, in permits, a node asks an owner for. */
    public int maxSlice() {
        return maxSlice;
    }

    /** Permits per second of one key, on one node, from which the key is leased. */
    public int hotKeyRate() {
        return hotKeyRate;
    }

    /**
     * How often, at the latest, this node sends the hits it admitted on synchronised keys ({@link
     * dev.sluice.algorithm.Policy#synced()}) to their owners, one call per shard of keys; a key that has used half its
     * budget goes at once. See {@code docs/design/synchronised.md}.
     */
    public Duration syncInterval() {
        return syncInterval;
    }

    /**
     * The budget of synchronised policies that set none ({@link dev.sluice.algorithm.Policy#syncBudget()}): the most
     * permits of a key one node admits before the key's owner has counted them; empty (unless set) for the automatic
     * one, the smallest limit's permits / (100 * (nodes - 1)), which keeps the over-admission under 1 % of the limit.
     */
    public OptionalLong syncBudget() {
        return syncBudget;
    }

    /**
     * How long a member keeps the concurrency permits of a client that disconnected from it: a client that reconnects
     * in time keeps them; after it, the member frees them. See {@code docs/design/concurrency.md}.
     */
    public Duration clientGrace() {
        return clientGrace;
    }

    /**
     * The most synchronised keys this node keeps a view of at once; a key beyond them is decided on its owner, one call
     * per request, until views are forgotten (once back to full capacity).
     */
    public int maxSyncedKeys() {
        return maxSyncedKeys;
    }

    /**
     * The secret counter keys are hashed with before they reach the cluster, and texts naming keys sealed with: the
     * configured one, else one derived from {@link #mapName()}.
     */
    KeySecret keySecret() {
        return keySecret;
    }

    /** The map the compare-and-set mode counts in: apart from the processors' map, whose values it cannot read. */
    String compareAndSetMapName() {
        return "cas-" + mapName;
    }

    /**
     * The configurations of the store's maps: the counters map (these backups, this per-member bound, least recently
     * used keys evicted first, forgetting what they had consumed), and the synchronised keys' map
     * ({@code synced-<counters map>}: the same backups, no bound, since one entry holds a shard of many keys and each
     * key leaves it once back to full capacity); both with objects in memory and the {@link MoreConsumedMergePolicy}.
     */
    List<MapConfig> toMapConfigs() {
        MapConfig counters = mapConfig(mapName)
                .setEvictionConfig(new EvictionConfig()
                        .setEvictionPolicy(EvictionPolicy.LRU)
                        .setMaxSizePolicy(MaxSizePolicy.PER_NODE)
                        .setSize(maxKeysPerMember));
        return List.of(counters, mapConfig(syncedMapName()));
    }

    /** The name of the synchronised keys' map. */
    String syncedMapName() {
        return ProcessorDecider.SYNCED_MAP_PREFIX + mapName;
    }

    private MapConfig mapConfig(String name) {
        return new MapConfig(name)
                .setBackupCount(backupCount)
                .setAsyncBackupCount(0)
                // Processors read and replace whole values: storing objects saves a deserialization per call, and a
                // shard of synchronised keys is changed in place.
                .setInMemoryFormat(InMemoryFormat.OBJECT)
                .setMergePolicyConfig(new MergePolicyConfig(MoreConsumedMergePolicy.class.getName(),
                        MergePolicyConfig.DEFAULT_BATCH_SIZE));
    }

    @Override
    public String toString() {
        return "StoreOptions[mapName=" + mapName + ", backupCount=" + backupCount + ", maxKeysPerMember="
                + maxKeysPerMember + ", onIncompatibleMembers=" + onIncompatibleMembers + ", batching=" + batching
                + ", maxBatch=" + maxBatch + ", leasing=" + leasing
                + ", leaseLifetime=" + leaseLifetime + ", maxSlice=" + maxSlice + ", hotKeyRate=" + hotKeyRate
                + ", syncInterval=" + syncInterval + ", syncBudget=" + (syncBudget.isPresent()
                ? String.valueOf(syncBudget.getAsLong()) : "auto") + ", maxSyncedKeys=" + maxSyncedKeys
                + ", clientGrace=" + clientGrace
                + ", keySecret=" + (keySecret.configured() ? "configured" : "derived") + "]";
    }

    /** Builds {@link StoreOptions}; every value is checked when set. Not thread-safe. */
    public static final class Builder {
        private String mapName = DEFAULT_MAP_NAME;
        private int backupCount = DEFAULT_BACKUP_COUNT;
        private int maxKeysPerMember = DEFAULT_MAX_KEYS_PER_MEMBER;
        private OnIncompatibleMembers onIncompatibleMembers = OnIncompatibleMembers.REFUSE;
        private boolean batching = true;
        private int maxBatch = DEFAULT_MAX_BATCH;
        private boolean leasing;
        private Duration leaseLifetime = DEFAULT_LEASE_LIFETIME;
        private int maxSlice = DEFAULT_MAX_SLICE;
        private int hotKeyRate = DEFAULT_HOT_KEY_RATE;
        private Duration syncInterval = DEFAULT_SYNC_INTERVAL;
        private OptionalLong syncBudget = OptionalLong.empty();
        private int maxSyncedKeys = DEFAULT_MAX_SYNCED_KEYS;
        private Duration clientGrace = DEFAULT_CLIENT_GRACE;
        private @Nullable String keySecret;

        private Builder() {
        }

        /**
         * The secret every instance of the application shares, at least 16 characters (32 random ones, such as
         * {@code openssl rand -base64 32} prints, are best): counter keys reach the cluster as a keyed hash under it,
         * and overrides and the console's entries sealed with it, so that whoever can read the cluster's maps cannot
         * tell which clients they count. Default: one derived from the counters map's name, which hides keys from a
         * glance at the maps but not from anyone who guesses a key and knows Sluice. Instances with different secrets
         * would count each client twice over: a store that finds the cluster's other instances use another does not
         * start (or, found later, fails every call), saying so. Changing it counts afresh; see
         * {@code docs/cluster.md}.
         *
         * @throws IllegalArgumentException for fewer than 16 characters (the message does not quote the secret)
         */
        public Builder keySecret(String secret) {
            KeySecret.configured(Objects.requireNonNull(secret, "keySecret"));
            this.keySecret = secret;
            return this;
        }

        /**
         * Whether hot keys of policies that ask for it are granted from slices taken from their owner (see
         * {@link HazelcastCounterStore}); default false.
         */
        public Builder leasing(boolean on) {
            this.leasing = on;
            return this;
        }

        /** How long a token bucket's or GCRA's slice stays valid, 1 ms to 50 ms; default 10 ms. */
        public Builder leaseLifetime(Duration lifetime) {
            if (lifetime.compareTo(Duration.ofMillis(1)) < 0 || lifetime.compareTo(MAX_LEASE_LIFETIME) > 0) {
                throw new IllegalArgumentException("leaseLifetime must be from 1ms to " + MAX_LEASE_LIFETIME.toMillis()
                        + "ms, got " + lifetime);
            }
            this.leaseLifetime = lifetime;
            return this;
        }

        /** The largest slice a node asks for, 2 to 1,000,000 permits; default {@value #DEFAULT_MAX_SLICE}. */
        public Builder maxSlice(int permits) {
            if (permits < 2 || permits > 1_000_000) {
                throw new IllegalArgumentException("maxSlice must be from 2 to 1000000, got " + permits);
            }
            this.maxSlice = permits;
            return this;
        }

        /** Permits per second of one key on one node from which it is leased, at least 1; default 1,000. */
        public Builder hotKeyRate(int permitsPerSecond) {
            if (permitsPerSecond < 1) {
                throw new IllegalArgumentException("hotKeyRate must be at least 1, got " + permitsPerSecond);
            }
            this.hotKeyRate = permitsPerSecond;
            return this;
        }

        /** How often, at the latest, synchronised keys' hits go to their owners, 1 ms to 1 s; default 20 ms. */
        public Builder syncInterval(Duration interval) {
            if (interval.compareTo(Duration.ofMillis(1)) < 0 || interval.compareTo(MAX_SYNC_INTERVAL) > 0) {
                throw new IllegalArgumentException("syncInterval must be from 1ms to " + MAX_SYNC_INTERVAL.toMillis()
                        + "ms, got " + interval);
            }
            this.syncInterval = interval;
            return this;
        }

        /**
         * How long a member keeps the concurrency permits of a client disconnected from it, 1 ms or more; default
         * 30 s. Shorter frees a crashed client's permits sooner; longer keeps them over a longer network outage.
         */
        public Builder clientGrace(Duration grace) {
            if (grace.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("clientGrace must be 1ms or more, got " + grace);
            }
            this.clientGrace = grace;
            return this;
        }

        /**
         * The budget of synchronised policies that set none: at most {@code permits} of a key admitted on one node
         * and not yet counted by its owner (0: every decision on the owner); default automatic
         * ({@link StoreOptions#syncBudget()}). Over-admission is at most {@code (nodes - 1) * budget} per window.
         */
        public Builder syncBudget(long permits) {
            if (permits < 0) {
                throw new IllegalArgumentException("syncBudget must be 0 or more permits, got " + permits);
            }
            this.syncBudget = OptionalLong.of(permits);
            return this;
        }

        /** The automatic budget ({@link StoreOptions#syncBudget()}): the default. */
        public Builder automaticSyncBudget() {
            this.syncBudget = OptionalLong.empty();
            return this;
        }

        /** The most synchronised keys one node keeps a view of, at least 1; default 100,000. */
        public Builder maxSyncedKeys(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxSyncedKeys must be at least 1, got " + max);
            }
            this.maxSyncedKeys = max;
            return this;
        }

        /**
         * Whether decisions on one key wait while a call on that key is in flight, then go together; default true.
         * Off, every decision is a call of its own, as many in flight on one key as callers ask.
         */
        public Builder batching(boolean on) {
            this.batching = on;
            return this;
        }

        /** The most decisions one batched call carries, 1 to 4,096; default {@value #DEFAULT_MAX_BATCH}. */
        public Builder maxBatch(int max) {
            if (max < 1 || max > WireFormat.MAX_BATCH_REQUESTS) {
                throw new IllegalArgumentException("maxBatch must be from 1 to " + WireFormat.MAX_BATCH_REQUESTS
                        + ", got " + max);
            }
            this.maxBatch = max;
            return this;
        }

        /** What to do when the members cannot run Sluice's processors; default {@code REFUSE}. */
        public Builder onIncompatibleMembers(OnIncompatibleMembers choice) {
            this.onIncompatibleMembers = Objects.requireNonNull(choice, "onIncompatibleMembers");
            return this;
        }

        /** The name of the counters map; default {@value #DEFAULT_MAP_NAME}. */
        public Builder mapName(String name) {
            this.mapName = Checks.text(name, "mapName");
            return this;
        }

        /** Synchronous backups of each key, 0 to 6; default {@value #DEFAULT_BACKUP_COUNT}. */
        public Builder backupCount(int count) {
            if (count < 0 || count > MAX_BACKUP_COUNT) {
                throw new IllegalArgumentException("backupCount must be from 0 to " + MAX_BACKUP_COUNT + ", got "
                        + count);
            }
            this.backupCount = count;
            return this;
        }

        /** The most keys one member holds, at least 1; default {@value #DEFAULT_MAX_KEYS_PER_MEMBER}. */
        public Builder maxKeysPerMember(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxKeysPerMember must be at least 1, got " + max);
            }
            this.maxKeysPerMember = max;
            return this;
        }

        public StoreOptions build() {
            return new StoreOptions(this);
        }
    }
}
