/**
 * Internal: reservations of a cost known when a request ends, counted at their estimate and settled at their actual
 * cost on the key's owner ({@link dev.sluice.hazelcast.internal.settle.Reservations}). Depends on
 * {@code internal.calls}, {@code internal.wire} and core only.
 */
@NullMarked
package dev.sluice.hazelcast.internal.settle;

import org.jspecify.annotations.NullMarked;
