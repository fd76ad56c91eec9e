/**
 * The cluster's console ({@code sluice-console}) in a Spring Boot application: mounted on a Jersey servlet of its own
 * when a token or role opens it.
 */
@NullMarked
package dev.sluice.spring.boot.console;

import org.jspecify.annotations.NullMarked;
