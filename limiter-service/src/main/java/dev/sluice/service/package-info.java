/**
 * The limiter as an HTTP service, for clients in any language: {@link dev.sluice.service.LimiterService}, a JAX-RS
 * feature any Jersey application registers, serves limits by id (and key) from a
 * {@link dev.sluice.service.LimitsFile}, counting in the application's {@link dev.sluice.store.CounterStore}, so that
 * every instance of a cluster answers alike. The Java client is {@link dev.sluice.service.client.LimiterClient}.
 */
@NullMarked
package dev.sluice.service;

import org.jspecify.annotations.NullMarked;
