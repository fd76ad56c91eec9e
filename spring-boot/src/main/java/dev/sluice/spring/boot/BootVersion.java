package dev.sluice.spring.boot;

import org.jspecify.annotations.Nullable;

/**
 * The check that the application runs the Spring Boot this module is built for: 4.0 or later. Boot 4 moved much of
 * what Sluice uses (the health contributors, the Hazelcast and metrics auto-configurations) into new modules and
 * packages, so on Boot 3 the auto-configuration would miss the application's HazelcastInstance and count in this JVM
 * alone, without a word. Stateless.
 */
final class BootVersion {

    private BootVersion() {
    }

    /**
     * Refuses a Spring Boot older than 4.0.
     *
     * @param version Spring Boot's version, or null when unknown (a class path without its manifest): then nothing is
     *     checked
     * @throws SluiceConfigurationException for a version below 4
     */
    static void require4(@Nullable String version) {
        if (version == null) {
            return;
        }
        int dot = version.indexOf('.');
        String major = dot < 0 ? version : version.substring(0, dot);
        int number;
        try {
            number = Integer.parseInt(major);
        } catch (NumberFormatException notANumber) {
            return;
        }
        if (number < 4) {
            throw new SluiceConfigurationException("Sluice's Spring Boot starter needs Spring Boot 4.0 or later; this"
                    + " application runs Spring Boot " + version + ".", "Upgrade to Spring Boot 4.0, or leave"
                    + " sluice-spring-boot-starter out and register dev.sluice.servlet.RateLimitFilter with a"
                    + " FilterRegistrationBean yourself (docs/filter.md).");
        }
    }
}
