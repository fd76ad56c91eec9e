package dev.sluice.spring.boot;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/*
 * Why: Spring Boot 4 moved its Hazelcast auto-configuration into a module of its own, so an application that adds
 * com.hazelcast:hazelcast and a hazelcast.yaml, as Boot 3 and Hazelcast's own guides have it, gets no HazelcastInstance
 * and Sluice would count in each JVM alone (two instances admitting twice a limit), which only the start line hinted
 * at. The places are those where Boot's Hazelcast auto-configuration (its ConfigAvailableCondition and
 * HazelcastClientConfigAvailableCondition) looks for a configuration to make an instance from.
 */

/**
 * The check that an application meant for a Hazelcast cluster has its instance: with Hazelcast on the class path and a
 * Hazelcast configuration there to be found (a {@code hazelcast.yaml} where Spring Boot looks, the property
 * {@code spring.hazelcast.config}, a {@code Config} bean) but no {@code HazelcastInstance} bean, Sluice refuses to
 * start rather than count in this JVM alone, naming Spring Boot's module when it is missing. Stateless.
 */
final class MissingHazelcastInstance {

    /** Spring Boot 4's module of the Hazelcast auto-configuration: {@value}. */
    static final String MODULE = "org.springframework.boot:spring-boot-hazelcast";

    /** The auto-configuration that module brings. */
    static final String AUTO_CONFIGURATION =
            "org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration";

    private static final String HAZELCAST_INSTANCE = "com.hazelcast.core.HazelcastInstance";

    private static final List<String> CONFIG_BEANS = List.of("com.hazelcast.config.Config",
            "com.hazelcast.client.config.ClientConfig");

    private static final List<String> SYSTEM_PROPERTIES = List.of("hazelcast.config", "hazelcast.client.config");

    private static final List<String> RESOURCES = List.of("hazelcast.xml", "hazelcast.yaml", "hazelcast.yml",
            "hazelcast-client.xml", "hazelcast-client.yaml", "hazelcast-client.yml");

    private MissingHazelcastInstance() {
    }

    /**
     * Refuses an application that has Hazelcast on the class path and a Hazelcast configuration, but no
     * {@code HazelcastInstance} bean; nothing otherwise.
     *
     * @throws SluiceConfigurationException saying where the configuration is and, when it is missing, naming
     *     {@value #MODULE}
     */
    static void refuse(Environment environment, ResourceLoader resources, ListableBeanFactory beans,
                       @Nullable ClassLoader loader) {
        if (!ClassUtils.isPresent(HAZELCAST_INSTANCE, loader)
                || beans.getBeanNamesForType(ClassUtils.resolveClassName(HAZELCAST_INSTANCE, loader)).length > 0) {
            return;
        }
        List<String> found = configurations(environment, resources, beans, loader);
        if (found.isEmpty()) {
            return;
        }
        String where = String.join(", ", found);
        if (!ClassUtils.isPresent(AUTO_CONFIGURATION, loader)) {
            throw new SluiceConfigurationException("The application has Hazelcast and a Hazelcast configuration ("
                    + where + "), but no HazelcastInstance: Spring Boot 4 makes one only with its module " + MODULE
                    + ", which is not on the class path. Sluice would count in this JVM alone.",
                    "Add " + MODULE + " (Spring Boot manages its version) to count in the cluster, or define the"
                            + " HazelcastInstance bean yourself, or set sluice.store=local to count in each instance"
                            + " on its own.");
        }
        throw new SluiceConfigurationException("The application has Hazelcast and a Hazelcast configuration (" + where
                + "), but no HazelcastInstance: Spring Boot's Hazelcast auto-configuration (" + AUTO_CONFIGURATION
                + ") made none. Sluice would count in this JVM alone.",
                "Let Spring Boot's Hazelcast auto-configuration run (is it excluded?), or define the HazelcastInstance"
                        + " bean yourself, or set sluice.store=local to count in each instance on its own.");
    }

    /** Where the application has a Hazelcast configuration, as Spring Boot's Hazelcast auto-configuration looks. */
    private static List<String> configurations(Environment environment, ResourceLoader resources,
                                               ListableBeanFactory beans, @Nullable ClassLoader loader) {
        List<String> found = new ArrayList<>();
        if (environment.containsProperty("spring.hazelcast.config")) {
            found.add("spring.hazelcast.config=" + environment.getProperty("spring.hazelcast.config"));
        }
        for (String property : SYSTEM_PROPERTIES) {
            if (System.getProperty(property) != null) {
                found.add("the system property " + property);
            }
        }
        for (String type : CONFIG_BEANS) {
            if (ClassUtils.isPresent(type, loader)
                    && beans.getBeanNamesForType(ClassUtils.resolveClassName(type, loader)).length > 0) {
                found.add("a " + type + " bean");
            }
        }
        for (String name : RESOURCES) {
            for (String location : List.of("file:./" + name, "classpath:/" + name)) {
                if (resources.getResource(location).exists()) {
                    found.add(location);
                }
            }
        }
        return found;
    }
}
