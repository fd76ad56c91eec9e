/**
 * Sluice in Spring Boot's actuator: the {@code sluice} health contributor (the store's health) and the {@code sluice}
 * endpoint (the rules in force, their source and version, the overrides).
 */
@NullMarked
package dev.sluice.spring.boot.actuate;

import org.jspecify.annotations.NullMarked;
