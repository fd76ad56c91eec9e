/**
 * Request matching: what a rule compares a request with. The {@link dev.sluice.rules.match.RequestView} an adapter
 * gives, path patterns and their index, host patterns, client addresses behind trusted proxies, and CIDR ranges.
 * Nothing here counts.
 *
 * <p>Nothing here is null unless annotated {@code @Nullable}; the per-request
 * {@link dev.sluice.rules.match.RequestView}'s absent attributes are annotated nulls.
 */
@NullMarked
package dev.sluice.rules.match;

import org.jspecify.annotations.NullMarked;
