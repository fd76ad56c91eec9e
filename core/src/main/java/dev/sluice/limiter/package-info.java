/**
 * The programmatic API: {@link dev.sluice.limiter.RateLimiter} takes permits for keys under one policy, now or within
 * a maximum wait, and {@link dev.sluice.store.CounterStores} composes the store stack a remote store is used through
 * (failure policy, timeout, rejection cache, metrics), for the limiter and the adapters alike.
 */
@NullMarked
package dev.sluice.limiter;

import org.jspecify.annotations.NullMarked;
