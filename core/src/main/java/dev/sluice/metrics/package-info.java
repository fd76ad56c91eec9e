/**
 * Decision metrics: the {@link dev.sluice.metrics.DecisionMetrics} listener and its Micrometer implementation
 * (Micrometer is an optional dependency).
 */
@NullMarked
package dev.sluice.metrics;

import org.jspecify.annotations.NullMarked;
