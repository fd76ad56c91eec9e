/**
 * The console: {@link dev.sluice.console.ConsoleRecorder} records an instance's decisions,
 * {@link dev.sluice.console.Console} publishes them into the store's cluster and sums every instance's, and
 * {@link dev.sluice.console.ConsoleFeature} serves the sum as JSON and as a page. See {@code docs/console.md}.
 */
@NullMarked
package dev.sluice.console;

import org.jspecify.annotations.NullMarked;
