/**
 * The rate-limiting algorithms: a {@link dev.sluice.algorithm.Policy} is one
 * {@link dev.sluice.algorithm.Algorithm} over one or more limits, what a rule or a {@code RateLimiter} enforces.
 * Policy's state methods ({@code apply}, {@code record}, ...) are for stores: they run the algorithm as a pure function
 * of a key's state and the time and return a {@code dev.sluice.internal.state.Transition}. See
 * {@code docs/design/algorithms.md}.
 */
@NullMarked
package dev.sluice.algorithm;

import org.jspecify.annotations.NullMarked;
