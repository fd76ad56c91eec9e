/**
 * The servlet filter: {@link dev.sluice.servlet.RateLimitFilter}, set up by {@link dev.sluice.servlet.FilterSettings}
 * from {@code web.xml} init-params or in code, counting in a store given in code or opened by a
 * {@link dev.sluice.store.CounterStoreProvider}.
 */
@NullMarked
package dev.sluice.servlet;

import org.jspecify.annotations.NullMarked;
