/**
 * Annotations that declare rate limits on JAX-RS resources: {@link dev.sluice.annotation.RateLimited} and
 * {@link dev.sluice.annotation.RateLimitExempt}. They are read into rules by {@code dev.sluice.rules.AnnotationRules};
 * this package depends on nothing but the algorithms.
 */
@NullMarked
package dev.sluice.annotation;

import org.jspecify.annotations.NullMarked;
