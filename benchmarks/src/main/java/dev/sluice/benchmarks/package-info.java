/**
 * JMH benchmarks and load runs of Sluice beside the libraries users would pick instead (not published).
 */
@NullMarked
package dev.sluice.benchmarks;

import org.jspecify.annotations.NullMarked;
