package dev.sluice.store;

import dev.sluice.TimeSource;
import dev.sluice.store.FailurePolicyStore.OnFailure;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Composes the stack a remote store is used through, the one way the servlet filter and applications build it:
 * outermost first, the failure policy ({@link FailurePolicyStore}: timeout, calls in flight, what decides when the
 * store fails, failures logged and counted in metrics), an optional rejection cache ({@link RejectionCachingStore}),
 * the store. Under {@link OnFailure#LOCAL} (the default) the builder makes the fallback {@link LocalCounterStore}.
 *
 * <pre>{@code
 * FailurePolicyStore store = CounterStores.of(hazelcastStore).rejectionCache(10_000)
 *         .timeout(Duration.ofMillis(100)).onFailure(OnFailure.LOCAL).failures(metrics::storeFailed).build();
 * }</pre>
 *
 * <p>Closing the built store closes the fallback and the given store (unless {@link Builder#leaveStoreOpen}).
 * Builders are not thread-safe; built stores are. Design: {@code docs/design/failure-handling.md}.
 */
public final class CounterStores {

    private CounterStores() {
    }

    /** A builder of the stack over {@code store}, with the defaults each of its methods names. */
    public static Builder of(CounterStore store) {
        return new Builder(Objects.requireNonNull(store, "store"));
    }

    /** Builds the stack over one store; not thread-safe. */
    public static final class Builder {
        private final CounterStore store;
        private TimeSource time = TimeSource.system();
        private int rejectionCache;
        private Duration timeout = FailurePolicyStore.DEFAULT_TIMEOUT;
        private OnFailure onFailure = OnFailure.LOCAL;
        private long maxKeys = LocalCounterStore.DEFAULT_MAX_KEYS;
        private int maxPending = FailurePolicyStore.DEFAULT_MAX_PENDING;
        private Consumer<String> failures = id -> { };
        private boolean closesStore = true;

        private Builder(CounterStore store) {
            this.store = store;
        }

        /** The clock of the rejection cache and of the fallback store; default the system's. For tests. */
        public Builder timeSource(TimeSource timeSource) {
            this.time = Objects.requireNonNull(timeSource, "timeSource");
            return this;
        }

        /**
         * How many rejections of the store to repeat without calling it, until their retry-after; default 0 (none).
         *
         * @throws IllegalArgumentException if {@code maxEntries} is negative
         */
        public Builder rejectionCache(int maxEntries) {
            if (maxEntries < 0) {
                throw new IllegalArgumentException("rejectionCache must not be negative, got " + maxEntries);
            }
            this.rejectionCache = maxEntries;
            return this;
        }

        /**
         * How long a call may wait for the store before the failure policy decides it; default
         * {@link FailurePolicyStore#DEFAULT_TIMEOUT} (100 ms).
         *
         * @throws IllegalArgumentException if {@code storeTimeout} is not positive
         */
        public Builder timeout(Duration storeTimeout) {
            if (storeTimeout.isNegative() || storeTimeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, got " + storeTimeout);
            }
            this.timeout = storeTimeout;
            return this;
        }

        /**
         * What decides a call the store fails or does not answer in time; default {@link OnFailure#LOCAL}, so a
         * limit keeps holding on each instance while the store fails.
         */
        public Builder onFailure(OnFailure policy) {
            this.onFailure = Objects.requireNonNull(policy, "onFailure");
            return this;
        }

        /**
         * Keys the fallback store holds at most; default {@link LocalCounterStore#DEFAULT_MAX_KEYS}.
         *
         * @throws IllegalArgumentException if {@code max} is below 1
         */
        public Builder maxKeys(long max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxKeys must be positive, got " + max);
            }
            this.maxKeys = max;
            return this;
        }

        /**
         * Calls in flight to the store at most, beyond which the failure policy decides at once; default
         * {@link FailurePolicyStore#DEFAULT_MAX_PENDING}.
         *
         * @throws IllegalArgumentException if {@code max} is below 1
         */
        public Builder maxPending(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxPending must be at least 1, got " + max);
            }
            this.maxPending = max;
            return this;
        }

        /**
         * Who hears of each call the store failed or did not answer in time, by the id its counter key starts with
         * ({@link CounterKeys#idOf}, or {@link CounterKeys#NO_ID}): never the key, which is client data; default none.
         */
        public Builder failures(Consumer<String> failedIds) {
            this.failures = Objects.requireNonNull(failedIds, "failures");
            return this;
        }

        /** Closing the built store leaves the given store open: for a store its owner closes itself. */
        public Builder leaveStoreOpen() {
            this.closesStore = false;
            return this;
        }

        /** The stack; closing it closes the fallback store and, unless left open, the given store. */
        public FailurePolicyStore build() {
            CounterStore inner = closesStore ? store : new LeftOpenStore(store);
            CounterStore cached = rejectionCache == 0 ? inner : new RejectionCachingStore(inner, time, rejectionCache);
            FailurePolicyStore guarded = switch (onFailure) {
                case ALLOW -> FailurePolicyStore.allowing(cached, timeout);
                case REJECT -> FailurePolicyStore.rejecting(cached, timeout);
                case LOCAL -> FailurePolicyStore.fallingBackTo(cached, timeout,
                        new LocalCounterStore(time, maxKeys));
            };
            Consumer<String> told = failures;
            return guarded.withMaxPending(maxPending).listeningTo((key, timedOut) -> told.accept(
                    CounterKeys.idOf(key).orElse(CounterKeys.NO_ID)));
        }
    }
}
