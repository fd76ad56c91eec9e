/** A Java client of the limiter service, on the JAX-RS client API. */
@NullMarked
package dev.sluice.service.client;

import org.jspecify.annotations.NullMarked;
