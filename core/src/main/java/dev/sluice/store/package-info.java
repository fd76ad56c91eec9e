/**
 * Where counters live: the {@link dev.sluice.store.CounterStore} contract, the in-heap store, and the decorators that
 * cache rejections and decide when a remote store fails.
 */
@NullMarked
package dev.sluice.store;

import org.jspecify.annotations.NullMarked;
