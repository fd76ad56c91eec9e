/**
 * {@link dev.sluice.limiter.RateLimiter}: the programmatic API that takes permits for keys under one policy, now or
 * within a maximum wait.
 */
@NullMarked
package dev.sluice.limiter;

import org.jspecify.annotations.NullMarked;
