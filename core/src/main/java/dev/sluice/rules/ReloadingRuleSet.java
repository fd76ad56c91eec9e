package dev.sluice.rules;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

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
 * A {@link RuleSet} read from a rules file (merged with annotation rules) that follows changes to the file.
 *
 * <p>{@link #get()} returns one immutable set; an adapter takes it once per request, so a request sees the old or
 * the new rules, never a mix. {@link #reload()} checks the file now; {@link #start(Duration)} checks it periodically
 * on a daemon thread. A file that fails to read or parse leaves the current rules in force and is reported to the
 * {@link Listener}; the initial load, by contrast, throws. Thread-safe.
 */
public final class ReloadingRuleSet implements Supplier<RuleSet>, AutoCloseable {

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

    private final Path file;
    private final List<Rule> annotationRules;
    private final Listener listener;
    private final Object checkLock = new Object();
    private volatile RuleSet current;
    private byte[] lastHash;
    private ScheduledExecutorService poller;

    /**
     * Loads {@code file} and merges it with {@code annotationRules} ({@link RuleSet#combine}).
     *
     * @throws RulesException when the initial file cannot be read or used
     */
    public ReloadingRuleSet(Path file, List<Rule> annotationRules, Listener listener) {
        this.file = Objects.requireNonNull(file, "file");
        this.annotationRules = List.copyOf(annotationRules);
        this.listener = Objects.requireNonNull(listener, "listener");
        byte[] content = RulesFile.readBytes(file);
        this.current = load(content);
        this.lastHash = Sha256.of(content);
    }

    /** The rules in force now. */
    @Override
    public RuleSet get() {
        return current;
    }

    /**
     * Checks the file now: when its content changed, parses it and, if valid, puts the new rules in force.
     *
     * @return whether new rules are now in force; false when the file is unchanged, unreadable (reported to the
     *     listener on every check) or invalid (reported once per distinct content)
     */
    public boolean reload() {
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
            listener.reloaded(loaded);
            return true;
        }
    }

    /**
     * Checks the file every {@code interval} on a daemon thread, until {@link #close()}.
     *
     * @throws IllegalStateException when already started
     */
    public synchronized void start(Duration interval) {
        if (poller != null) {
            throw new IllegalStateException("already started");
        }
        poller = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "sluice-rules-reload");
            thread.setDaemon(true);
            return thread;
        });
        long nanos = interval.toNanos();
        poller.scheduleWithFixedDelay(this::reloadQuietly, nanos, nanos, TimeUnit.NANOSECONDS);
    }

    /** Stops periodic checks; the current rules stay usable. */
    @Override
    public synchronized void close() {
        if (poller != null) {
            poller.shutdownNow();
            poller = null;
        }
    }

    private void reloadQuietly() {
        try {
            reload();
        } catch (RuntimeException e) {
            listener.failed(new RulesException(file + ": reload failed: " + e, e));
        }
    }

    private RuleSet load(byte[] content) {
        return RuleSet.combine(RulesFile.parse(String.valueOf(file.getFileName()), content), annotationRules);
    }
}
