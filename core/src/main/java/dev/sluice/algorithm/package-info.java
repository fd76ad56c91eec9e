/**
 * The rate-limiting algorithms as pure functions of a key's state and the time: {@link dev.sluice.algorithm.Policy}
 * runs an {@link dev.sluice.algorithm.Algorithm} over its limits and returns a
 * {@link dev.sluice.algorithm.Transition}. A key with no state is passed as a {@code @Nullable} array.
 */
@NullMarked
package dev.sluice.algorithm;

import org.jspecify.annotations.NullMarked;
