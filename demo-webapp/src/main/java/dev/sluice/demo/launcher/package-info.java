/**
 * Runs the demo web application on an embedded Jetty joined to a Hazelcast cluster, from the command line.
 */
@NullMarked
package dev.sluice.demo.launcher;

import org.jspecify.annotations.NullMarked;
