package dev.sluice;

/**
 * What one rule's counter enforces on a request: a rate policy ({@link dev.sluice.algorithm.Policy}, permits per
 * period) or a {@link ConcurrencyLimit} (requests in flight). Those two are the only implementations; adapters tell
 * them apart to write each one's header items. Implementations are immutable and thread-safe.
 */
public interface Quota {
}
