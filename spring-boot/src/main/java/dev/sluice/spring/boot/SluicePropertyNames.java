package dev.sluice.spring.boot;

import dev.sluice.internal.SettingNames;
import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/*
 * Why a check of our own: Spring Boot binds sluice.* leniently and ignores a name it cannot bind, so a misspelt
 * "sluice.store-timout=50ms" would leave the default in force without a word; its strict mode names the unbound
 * property but not what was meant. The names come from SluiceProperties itself, so they cannot drift from what binds.
 * Names are compared as Spring compares them (kebab-case, camelCase and underscores alike). Environment variables and
 * JVM system properties are left out, as Spring Boot's own strict binding leaves them out: an environment variable's
 * name maps to a property name ambiguously (SLUICE_STORE_TIMEOUT could be sluice.store.timeout), and both hold names
 * nobody chose for this application (a build tool passes its own sluice.* settings to the JVMs it forks).
 */

/**
 * The {@code sluice.*} property names {@link SluiceProperties} binds, and the check that the application sets no
 * other. Stateless.
 */
final class SluicePropertyNames {

    static final String PREFIX = "sluice";

    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of(PREFIX);

    private SluicePropertyNames() {
    }

    /**
     * A property name, such as {@code sluice.store-timeout}; a container's (a map's or list's) stands for its entries,
     * such as {@code sluice.trusted-proxies[0]} or {@code sluice.store-settings.hazelcast-members}.
     */
    record Name(String text, boolean container) {

        /** Whether this name binds {@code name}. */
        boolean binds(ConfigurationPropertyName name) {
            ConfigurationPropertyName own = ConfigurationPropertyName.of(text);
            return own.equals(name) || container && own.isAncestorOf(name);
        }
    }

    /** Every property name {@link SluiceProperties} binds, in its order. */
    static List<Name> known() {
        List<Name> names = new ArrayList<>();
        collect(SluiceProperties.class, PREFIX, names);
        return names;
    }

    private static void collect(Class<?> type, String prefix, List<Name> names) {
        for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
            if (property.getReadMethod() == null || property.getName().equals("class")) {
                continue;
            }
            String name = prefix + "." + DataObjectPropertyName.toDashedForm(property.getName());
            Class<?> valueType = property.getPropertyType();
            if (valueType.getDeclaringClass() == SluiceProperties.class && !valueType.isEnum()) {
                collect(valueType, name, names);
            } else {
                names.add(new Name(name, Map.class.isAssignableFrom(valueType)
                        || Collection.class.isAssignableFrom(valueType)));
            }
        }
    }

    /**
     * Refuses a {@code sluice.*} property set in {@code environment} (environment variables and system properties
     * aside) that {@link SluiceProperties} does not bind.
     *
     * @throws SluiceConfigurationException naming the property, where it was set, the nearest known name and all
     *     known names
     */
    static void requireKnown(ConfigurableEnvironment environment) {
        List<Name> known = known();
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (!(source instanceof EnumerablePropertySource<?> names)
                    || source instanceof SystemEnvironmentPropertySource
                    || source.getName().equals(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME)) {
                continue;
            }
            for (String name : names.getPropertyNames()) {
                if (!knownOrNotOurs(name, known)) {
                    List<String> texts = known.stream().map(Name::text).toList();
                    throw new SluiceConfigurationException(SettingNames.refusal("property", name,
                            "a Sluice property (set in " + source.getName() + ")", texts), "Correct or remove '"
                            + name + "' in " + source.getName() + ". Every sluice.* property is listed in"
                            + " docs/spring-boot.md.");
                }
            }
        }
    }

    /** Whether {@code name} is not a {@code sluice.*} name, or is one that {@code known} binds. */
    static boolean knownOrNotOurs(String name, List<Name> known) {
        ConfigurationPropertyName adapted = ConfigurationPropertyName.adapt(name, '.');
        return !ROOT.isAncestorOf(adapted) || known.stream().anyMatch(candidate -> candidate.binds(adapted));
    }
}
