/**
 * Client-side limiting: {@link dev.sluice.jersey.client.RateLimitClientFilter} keeps a Jersey client, or a fleet of
 * workers sharing a store, within a remote API's limits and honours its {@code Retry-After}.
 */
@NullMarked
package dev.sluice.jersey.client;

import org.jspecify.annotations.NullMarked;
