package dev.sluice.hazelcast;

import dev.sluice.TimeSource;
import dev.sluice.hazelcast.internal.cluster.KeySecret;
import dev.sluice.internal.DurationText;
import dev.sluice.store.CounterStoreProvider.Context;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Reads the Hazelcast init-params of the {@code hazelcast} and {@code hazelcast-client} store providers into options;
 * the defaults are the options'. Stateless.
 */
final class InitParams {

    /** The member store's name. */
    static final String MEMBER_STORE = "hazelcast";
    /** The client store's name. */
    static final String CLIENT_STORE = "hazelcast-client";
    static final String CONFIG = "hazelcast-config";
    static final String CLUSTER_NAME = "hazelcast-cluster-name";
    static final String MEMBERS = "hazelcast-members";
    static final String PORT = "hazelcast-port";
    static final String INTERFACE = "hazelcast-interface";
    static final String INCOMPATIBLE_MEMBERS = "hazelcast-incompatible-members";
    static final String BATCHING = "hazelcast-batching";
    static final String LEASING = "hazelcast-leasing";
    static final String LEASE_LIFETIME = "hazelcast-lease-lifetime";
    static final String MAX_SLICE = "hazelcast-max-slice";
    static final String HOT_KEY_RATE = "hazelcast-hot-key-rate";
    static final String SYNC_INTERVAL = "hazelcast-sync-interval";
    static final String CLIENT_GRACE = "hazelcast-client-grace";
    static final String SYNC_BUDGET = "hazelcast-sync-budget";
    static final String MAX_SYNCED_KEYS = "hazelcast-max-synced-keys";
    static final String KEY_SECRET = "hazelcast-key-secret";

    /** The init-params of the store, which both providers take. */
    private static final List<String> STORE_SETTINGS = List.of(INCOMPATIBLE_MEMBERS, BATCHING, LEASING,
            LEASE_LIFETIME, MAX_SLICE, HOT_KEY_RATE, SYNC_INTERVAL, SYNC_BUDGET, MAX_SYNCED_KEYS, CLIENT_GRACE,
            KEY_SECRET);

    /**
     * Every init-param the providers read: a client reads {@link #PORT} and {@link #INTERFACE} too, to refuse them
     * with a message saying they belong to a member.
     */
    static final Set<String> SETTINGS = settings(CONFIG, CLUSTER_NAME, MEMBERS, PORT, INTERFACE);

    /** The interface a member of the init-params binds to unless told: this machine only, never the network. */
    static final String DEFAULT_INTERFACE = MemberOptions.DEFAULT_BIND_ADDRESS;

    private static final String FILE = "a Hazelcast YAML or XML file";
    private static final String CLUSTER = "a cluster name";
    private static final String ADDRESSES = "a comma-separated host:port list";
    private static final String FILE_PREFIX = "file:";

    private InitParams() {
    }

    /** A member: {@link #CONFIG}, or {@link #CLUSTER_NAME}, {@link #MEMBERS}, {@link #PORT} and {@link #INTERFACE}. */
    static MemberOptions member(Context context) {
        MemberOptions.Builder options = MemberOptions.builder().store(store(context));
        Optional<Path> file = context.setting(CONFIG, Path::of, FILE);
        if (file.isPresent()) {
            refuseBeside(context, CONFIG + ", which sets them itself", CLUSTER_NAME, MEMBERS, PORT, INTERFACE);
            options.configFile(file.get());
        } else {
            context.setting(CLUSTER_NAME, options::clusterName, CLUSTER);
            context.setting(MEMBERS, value -> options.members(list(value)), ADDRESSES);
            context.setting(PORT, value -> options.port(Integer.parseInt(value.trim())), "a port from 1 to 65535");
            options.bindAddress(context.setting(INTERFACE, String::trim, "an address such as 127.0.0.1")
                    .orElse(DEFAULT_INTERFACE));
        }
        // The adapter's own time reaches the member only when it is not the real one, which Hazelcast's cluster time
        // (skew-corrected across members) serves better.
        if (context.timeSource() != TimeSource.system()) {
            options.timeSource(context.timeSource());
        }
        return options.build();
    }

    /** A client: {@link #CONFIG}, or {@link #CLUSTER_NAME} and {@link #MEMBERS}. */
    static ClientOptions client(Context context) {
        refuseBeside(context, "store '" + CLIENT_STORE + "'", PORT, INTERFACE);
        ClientOptions.Builder options = ClientOptions.builder().store(store(context));
        Optional<Path> file = context.setting(CONFIG, Path::of, FILE);
        if (file.isPresent()) {
            refuseBeside(context, CONFIG + ", which sets them itself", CLUSTER_NAME, MEMBERS);
            options.configFile(file.get());
        } else {
            context.setting(CLUSTER_NAME, options::clusterName, CLUSTER);
            context.setting(MEMBERS, value -> options.members(list(value)), ADDRESSES);
        }
        return options.build();
    }

    /**
     * The counters map of the context's namespace (one map per application sharing the cluster), and
     * {@link #INCOMPATIBLE_MEMBERS}: {@code refuse} or {@code compare-and-set}, {@link #BATCHING} and
     * {@link #LEASING}: {@code true} or {@code false}, and the leases' {@link #LEASE_LIFETIME}, {@link #MAX_SLICE}
     * and {@link #HOT_KEY_RATE}, and the synchronised keys' {@link #SYNC_INTERVAL}, {@link #SYNC_BUDGET}
     * ({@code auto} or a number of permits) and {@link #MAX_SYNCED_KEYS}, the permits' {@link #CLIENT_GRACE}, and
     * the {@link #KEY_SECRET}.
     */
    private static StoreOptions store(Context context) {
        String namespace = context.namespace();
        StoreOptions.Builder options = StoreOptions.builder().mapName(HazelcastCounterStore.DEFAULT_MAP_NAME
                + (namespace.equals("/") ? "" : namespace));
        context.setting(INCOMPATIBLE_MEMBERS, value -> options.onIncompatibleMembers(
                StoreOptions.OnIncompatibleMembers.valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'))),
                "one of refuse, compare-and-set");
        context.setting(BATCHING, value -> options.batching(bool(value)), "true or false");
        context.setting(LEASING, value -> options.leasing(bool(value)), "true or false");
        context.setting(LEASE_LIFETIME, value -> options.leaseLifetime(DurationText.parse(value.trim())
                .orElseThrow()), "a duration from 1ms to " + StoreOptions.MAX_LEASE_LIFETIME.toMillis() + "ms");
        context.setting(MAX_SLICE, value -> options.maxSlice(Integer.parseInt(value.trim())),
                "a number of permits from 2 to 1000000");
        context.setting(HOT_KEY_RATE, value -> options.hotKeyRate(Integer.parseInt(value.trim())),
                "a number of permits per second, at least 1");
        context.setting(SYNC_INTERVAL, value -> options.syncInterval(DurationText.parse(value.trim())
                .orElseThrow()), "a duration from 1ms to " + StoreOptions.MAX_SYNC_INTERVAL.toMillis() + "ms");
        context.setting(SYNC_BUDGET, value -> value.trim().equals("auto") ? options.automaticSyncBudget()
                : options.syncBudget(Long.parseLong(value.trim())), "auto, or a number of permits, 0 or more");
        context.setting(MAX_SYNCED_KEYS, value -> options.maxSyncedKeys(Integer.parseInt(value.trim())),
                "a number of keys, at least 1");
        context.setting(CLIENT_GRACE, value -> options.clientGrace(DurationText.parse(value.trim()).orElseThrow()),
                "a duration, 1ms or more");
        context.setting(KEY_SECRET).ifPresent(value -> options.keySecret(keySecret(value.trim())));
        return options.build();
    }

    /**
     * The key secret {@code value} gives: itself, or with {@code file:} the text of that file (trimmed), so that the
     * secret need not be in {@code web.xml}. A refusal never quotes the secret, as the other settings' quote values.
     */
    private static String keySecret(String value) {
        String secret = value;
        if (value.startsWith(FILE_PREFIX)) {
            Path file = Path.of(value.substring(FILE_PREFIX.length()));
            try {
                secret = Files.readString(file).trim();
            } catch (IOException | UncheckedIOException e) {
                throw new IllegalArgumentException("init-param '" + KEY_SECRET + "': cannot read the file " + file
                        + " (" + e.getClass().getSimpleName() + ")", e);
            }
        }
        if (secret.length() < KeySecret.MIN_LENGTH) {
            throw new IllegalArgumentException("init-param '" + KEY_SECRET + "': expected a secret of at least "
                    + KeySecret.MIN_LENGTH + " characters, or file: and a file holding one; got " + secret.length()
                    + " characters" + (value.startsWith(FILE_PREFIX) ? " in " + value : ""));
        }
        return secret;
    }

    private static Set<String> settings(String... connection) {
        Set<String> names = new LinkedHashSet<>(List.of(connection));
        names.addAll(STORE_SETTINGS);
        return Collections.unmodifiableSet(names);
    }

    /** Fails if any of {@code others} is set: {@code reason} (an init-param or the store) leaves no room for them. */
    private static void refuseBeside(Context context, String reason, String... others) {
        List<String> set = Stream.of(others).filter(name -> context.setting(name).isPresent()).toList();
        if (!set.isEmpty()) {
            throw new IllegalArgumentException("init-param " + String.join(", ", set) + " cannot be used with "
                    + reason);
        }
    }

    private static boolean bool(String value) {
        return switch (value.trim()) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(value);
        };
    }

    private static List<String> list(String text) {
        return Arrays.stream(text.split(",")).map(String::trim).filter(item -> !item.isEmpty()).toList();
    }
}
