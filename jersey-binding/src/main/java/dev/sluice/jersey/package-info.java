/**
 * The Jersey (JAX-RS) binding: {@link dev.sluice.jersey.RateLimitFeature} limits resource methods by the rules file
 * and by annotations.
 */
@NullMarked
package dev.sluice.jersey;

import org.jspecify.annotations.NullMarked;
