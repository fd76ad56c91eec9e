/**
 * Spring Boot auto-configuration of Sluice: {@link dev.sluice.spring.boot.SluiceAutoConfiguration} registers the
 * servlet filter from {@link dev.sluice.spring.boot.SluiceProperties} ({@code sluice.*}), counting in the
 * application's Hazelcast cluster when it has one, with {@code @RateLimited} Spring MVC handlers among its rules.
 */
@NullMarked
package dev.sluice.spring.boot;

import org.jspecify.annotations.NullMarked;
