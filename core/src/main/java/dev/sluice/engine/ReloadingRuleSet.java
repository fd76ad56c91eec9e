package dev.sluice.engine;

import dev.sluice.internal.Sha256;
import dev.sluice.rules.AnnotationRules;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RulesException;
import dev.sluice.rules.file.RulesFile;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.store.LimitOverride;
import dev.sluice.store.LimitOverrides;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/*
 * Why polling the content rather than a WatchService: WatchService misses edits on some file systems (network mounts,
 * Docker bind mounts, ConfigMap symlink swaps) and modification times can be too coarse to see two edits in one second.
 * A rules file is small, so each check reads it and compares a hash; only a changed file is parsed.
 *
 * Why no counter migration is needed: counter keys are "rule id @ policy fingerprint | key". A rule whose id and limits
 * are unchanged produces the same keys in the new set and so finds its state; a rule whose limits changed produces new
 * keys and starts fresh, and its old keys expire in the store on their own.
 */

/**
 * The rules an adapter evaluates: a rules file merged with annotation rules ({@link RuleSet#combine}), following
 * changes to the file. The servlet filter and the Jersey binding both hold their rules in one of these.
 *
 * <pre>{@code
 * ReloadingRuleSet rules = ReloadingRuleSet.builder().file(Path.of("/etc/myapp/rules.json"))
 *         .annotationRules(AnnotationRules.forClass(SearchResource.class)).build();  // throws RulesException
 * }</pre>
 *
 * <p>{@link #get()} returns one immutable set, so a request sees the old or the new rules, never a mix. A reload
 * that fails leaves the current rules in force and is reported to the {@link Listener}; the initial load throws.
 * Thread-safe. See {@code docs/design/rules.md}.
 */
public final class ReloadingRuleSet implements Supplier<RuleSet>, AutoCloseable {

    private static final System.Logger OVERRIDES_LOG = System.getLogger("dev.sluice.overrides");

    /** How often a rules file is checked for changes when not configured otherwise, by every adapter: 5 s. */
    public static final Duration DEFAULT_RELOAD_INTERVAL = Duration.ofSeconds(5);

    /** Told about reloads; called on the thread that checked the file. */
    public interface Listener {
        /** A listener that logs to the {@code dev.sluice.rules} {@link System.Logger}: reloads at INFO, failures at
         *  WARNING. */
        static Listener logging() {
            System.Logger log = System.getLogger("dev.sluice.rules");
            return new Listener() {
                @Override
                public void reloaded(RuleSet rules) {
                    log.log(System.Logger.Level.INFO, "rules reloaded: {0}", rules);
                }

                @Override
                public void failed(RulesException error) {
                    log.log(System.Logger.Level.WARNING, "rules not reloaded, the previous rules stay in force: {0}",
                            error.getMessage());
                }
            };
        }

        /** New rules are in force. */
        default void reloaded(RuleSet rules) {
        }

        /** The file changed but cannot be used; the previous rules stay in force. */
        default void failed(RulesException error) {
        }
    }

    /** The file followed; null when the rules come from content read once, or from annotations only. */
    private final @Nullable Path file;
    private final String name;
    private final List<Rule> annotationRules;
    /** Overrides the file's client addresses when not null. */
    private final @Nullable ClientAddresses clientAddresses;
    /** Overrides the IPv6 key prefix of the client addresses in force when present. */
    private final OptionalInt ipv6Prefix;
    private final Listener listener;
    private final Object checkLock = new Object();
    private volatile RuleSet current;
    /** The version of {@link #current}, written after it. */
    private volatile Version version;
    /** The hash of the content last parsed; guarded by {@link #checkLock}. */
    private byte @Nullable [] lastHash;
    private final @Nullable ScheduledExecutorService poller;
    private final Duration reloadInterval;
    /** The overrides whose rules each load checks ({@link #followOverrides}); none until then. */
    private volatile LimitOverrides overrides = LimitOverrides.unsupported();

    private ReloadingRuleSet(Builder builder) {
        this.file = builder.file;
        this.name = builder.name;
        this.annotationRules = List.copyOf(builder.annotationRules);
        this.clientAddresses = builder.clientAddresses;
        this.ipv6Prefix = builder.ipv6Prefix;
        this.listener = builder.listener;
        byte[] content = file != null ? RulesFile.readBytes(file) : builder.content;
        this.current = load(content);
        this.lastHash = content == null ? null : Sha256.of(content);
        this.version = Version.of(lastHash);
        this.reloadInterval = file != null ? builder.reloadInterval : Duration.ZERO;
        this.poller = reloadInterval.isZero() ? null : poll(reloadInterval);
    }

    /** A builder of a rule set with no rules file, no annotation rules, reloaded every 5 s, reporting to the log. */
    public static Builder builder() {
        return new Builder();
    }

    /** The rules in force now. */
    @Override
    public RuleSet get() {
        return current;
    }

    /**
     * Which rules are in force: the hash of the content they were loaded from and when they were loaded, so that
     * instances can tell whether they enforce the same rules (the console's drift).
     */
    public Version version() {
        return version;
    }

    /**
     * The version of the rules in force. Immutable.
     *
     * @param hash the first 16 hex digits of the SHA-256 of the rules content, or {@code none} for rules from
     *     annotations alone (which come with the code)
     * @param loadedAt when this content was loaded, by this JVM's wall clock
     */
    public record Version(String hash, Instant loadedAt) {

        /** The hash of rules from no content. */
        public static final String NONE = "none";

        static Version of(byte @Nullable [] contentHash) {
            return new Version(contentHash == null ? NONE : HexFormat.of().formatHex(contentHash, 0, 8),
                    Instant.now());
        }
    }

    /** How often the rules file is checked for changes; zero when never (no file, or reloading turned off). */
    public Duration reloadInterval() {
        return reloadInterval;
    }

    /**
     * Checks the file now: when its content changed, parses it and, if valid, puts the new rules in force.
     *
     * @return whether new rules are now in force; false when the file is unchanged, unreadable (reported to the
     *     listener on every check) or invalid (reported once per distinct content), and always when the rules come
     *     from no file
     */
    public boolean reload() {
        if (file == null) {
            return false;
        }
        synchronized (checkLock) {
            byte[] content;
            try {
                content = RulesFile.readBytes(file);
            } catch (RulesException e) {
                listener.failed(e);
                return false;
            }
            byte[] hash = Sha256.of(content);
            if (Arrays.equals(hash, lastHash)) {
                return false;
            }
            lastHash = hash;
            RuleSet loaded;
            try {
                loaded = load(content);
            } catch (RulesException e) {
                listener.failed(e);
                return false;
            }
            current = loaded;
            version = Version.of(hash);
            listener.reloaded(loaded);
            return true;
        }
    }

    /** Stops periodic checks; the current rules stay usable. */
    @Override
    public void close() {
        if (poller != null) {
            poller.shutdownNow();
        }
    }

    private ScheduledExecutorService poll(Duration interval) {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "sluice-rules-reload");
            thread.setDaemon(true);
            return thread;
        });
        long nanos = interval.toNanos();
        executor.scheduleWithFixedDelay(this::reloadQuietly, nanos, nanos, TimeUnit.NANOSECONDS);
        return executor;
    }

    private void reloadQuietly() {
        try {
            reload();
        } catch (RuntimeException e) {
            listener.failed(new RulesException(file + ": reload failed: " + e, e));
        }
    }

    private RuleSet load(byte @Nullable [] content) {
        RulesFile rules = content == null ? RulesFile.empty() : RulesFile.parse(name, content);
        ClientAddresses addresses = clientAddresses != null ? clientAddresses : rules.clientAddresses();
        RuleSet loaded = RuleSet.combine(rules, annotationRules,
                ipv6Prefix.isPresent() ? addresses.withIpv6Prefix(ipv6Prefix.getAsInt()) : addresses);
        warnAboutUnmatched(overrides.list(), loaded);
        return loaded;
    }

    /**
     * From now on, after each reload, logs at WARNING each override of {@code storeOverrides} (a store's, which
     * reloads keep) whose rule the new rules lack: it applies to nothing until it ends, is removed, or a reload brings
     * its rule back. Logs those of the rules in force now at once.
     */
    public void followOverrides(LimitOverrides storeOverrides) {
        this.overrides = Objects.requireNonNull(storeOverrides, "overrides");
        warnAboutUnmatched(storeOverrides.list(), current);
    }

    private static void warnAboutUnmatched(List<LimitOverride> overrides, RuleSet rules) {
        for (LimitOverride override : rules.unmatched(overrides)) {
            OVERRIDES_LOG.log(System.Logger.Level.WARNING, "override of rule {0} ({1}) names no rule in force;"
                    + " it applies to nothing until it ends at {2}, is removed, or a reload brings the rule back",
                    override.ruleId(), override.key().isPresent() ? "a key" : "every key", override.expiresAt());
        }
    }

    @Override
    public String toString() {
        return "ReloadingRuleSet[" + name + ", " + current + "]";
    }

    /** Builds a {@link ReloadingRuleSet}; not thread-safe. */
    public static final class Builder {
        private @Nullable Path file;
        private byte @Nullable [] content;
        private String name = "(none)";
        private List<Rule> annotationRules = List.of();
        private @Nullable ClientAddresses clientAddresses;
        private OptionalInt ipv6Prefix = OptionalInt.empty();
        private Duration reloadInterval = DEFAULT_RELOAD_INTERVAL;
        private Listener listener = Listener.logging();

        private Builder() {
        }

        /** Reads the rules from this file (UTF-8) and follows its changes; replaces any {@link #content} given. */
        public Builder file(Path rulesFile) {
            this.file = Objects.requireNonNull(rulesFile, "file");
            this.content = null;
            this.name = String.valueOf(rulesFile.getFileName());
            return this;
        }

        /**
         * Reads the rules from a document's bytes (UTF-8), such as a classpath resource, once; {@code documentName}
         * names it in messages. Replaces any {@link #file} given.
         */
        public Builder content(String documentName, byte[] document) {
            this.content = document.clone();
            this.file = null;
            this.name = Objects.requireNonNull(documentName, "name");
            return this;
        }

        /** Rules from annotations ({@link AnnotationRules}), merged with the file's on every load. */
        public Builder annotationRules(Collection<Rule> rules) {
            this.annotationRules = List.copyOf(rules);
            return this;
        }

        /** Resolves client addresses so, instead of by the rules file's {@code clientAddress}. */
        public Builder clientAddresses(ClientAddresses addresses) {
            this.clientAddresses = Objects.requireNonNull(addresses, "clientAddresses");
            return this;
        }

        /**
         * Keys IPv6 clients by their first {@code bits} bits ({@link ClientAddresses#withIpv6Prefix}), instead of as
         * the rules file's {@code clientAddress.ipv6Prefix}, or the {@link #clientAddresses} given, says.
         *
         * @throws IllegalArgumentException for a number of bits outside 1 to 128
         */
        public Builder ipv6Prefix(int bits) {
            ClientAddresses.direct().withIpv6Prefix(bits);
            this.ipv6Prefix = OptionalInt.of(bits);
            return this;
        }

        /**
         * How often the file is checked for changes; {@link Duration#ZERO} for only when {@link #reload()} is called.
         * Default {@link #DEFAULT_RELOAD_INTERVAL}.
         */
        public Builder reloadInterval(Duration interval) {
            if (interval.isNegative()) {
                throw new IllegalArgumentException("reloadInterval must not be negative, got " + interval);
            }
            this.reloadInterval = interval;
            return this;
        }

        /** Told about reloads; default {@link Listener#logging()}. */
        public Builder listener(Listener reloadListener) {
            this.listener = Objects.requireNonNull(reloadListener, "listener");
            return this;
        }

        /**
         * Loads the rules now and, for a file and a positive interval, starts checking it on a daemon thread.
         *
         * @throws RulesException when the rules cannot be read or used
         */
        public ReloadingRuleSet build() {
            return new ReloadingRuleSet(this);
        }
    }
}
