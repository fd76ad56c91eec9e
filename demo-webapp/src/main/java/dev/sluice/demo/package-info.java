/**
 * The demo web application: showcase resources behind the Sluice filter and the Jersey binding, a limiter service,
 * and live decision statistics.
 */
@NullMarked
package dev.sluice.demo;

import org.jspecify.annotations.NullMarked;
