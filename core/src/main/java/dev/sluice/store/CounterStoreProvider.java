package dev.sluice.store;

import dev.sluice.TimeSource;
import dev.sluice.internal.SettingNames;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Opens a {@link CounterStore} by name: the plug-in point through which adapters such as the servlet filter find a
 * store without naming its library. A library contributes providers through {@link java.util.ServiceLoader} (a
 * {@code META-INF/services/dev.sluice.store.CounterStoreProvider} file listing public classes with a public
 * no-argument constructor); an application may also name its own provider class.
 *
 * <p>The adapter gives the provider its configuration ({@link Context#setting}: for the servlet filter, the
 * filter's init-params), the namespace the counters of this application live in, and the time source. The adapter
 * owns the store it opened and closes it; it also bounds how long the store may take and what happens when it
 * fails, so a provider returns the bare store. An adapter refuses a setting name that neither it nor its provider
 * takes ({@link #settingNames()}), so a misspelt name stops the start instead of being ignored. Implementations are
 * thread-safe.
 */
public interface CounterStoreProvider {

    /** The name an adapter's configuration selects this provider by, such as {@code hazelcast}. */
    String name();

    /**
     * Opens the store: starts or connects whatever it needs, and returns once the store can be called.
     *
     * @throws IllegalArgumentException naming the setting and the expected form, for a setting that is not valid
     */
    CounterStore open(Context context);

    /**
     * The names of the settings this provider takes, such as {@code hazelcast-members}: an adapter refuses any other
     * name beyond its own, naming the nearest known one ({@link SettingNames#requireKnown}). Empty (the default, so
     * that providers written before this method keep working): the provider says nothing, and is given every setting
     * the adapter does not take itself, unchecked.
     */
    default Optional<Set<String>> settingNames() {
        return Optional.empty();
    }

    /**
     * What an adapter tells the provider it opens a store for. Immutable and thread-safe when the settings function
     * is.
     *
     * @param settings the adapter's settings by name (for the servlet filter, its init-params): the text, or null
     *     when not set
     * @param namespace separates the counters of applications that share one store, such as a web application's
     *     context path ({@code /} for the root)
     * @param timeSource the time the adapter decides by; a store that reads its own clock may use it in tests
     */
    record Context(Function<String, @Nullable String> settings, String namespace, TimeSource timeSource) {

        public Context {
            Objects.requireNonNull(settings, "settings");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(timeSource, "timeSource");
        }

        /** The text of setting {@code name}, if set. */
        public Optional<String> setting(String name) {
            return Optional.ofNullable(settings.apply(name));
        }

        /**
         * Setting {@code name} read by {@code parse}, if set.
         *
         * @param expected the form the setting takes, for the error message, such as {@code a port from 1 to 65535}
         * @throws IllegalArgumentException {@code init-param 'NAME': expected EXPECTED, got 'TEXT'} when
         *     {@code parse} throws, with its exception as the cause
         */
        public <T> Optional<T> setting(String name, Function<String, T> parse, String expected) {
            return setting(name).map(text -> parse(name, text, parse, expected));
        }

        /**
         * {@code text}, the value of setting {@code name}, read by {@code parse}; shared by every reader of
         * adapter settings so that all of them name a bad setting alike.
         *
         * @throws IllegalArgumentException as {@link #setting(String, Function, String)}
         */
        public static <T> T parse(String name, String text, Function<String, T> parse, String expected) {
            try {
                return parse.apply(text);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("init-param '" + name + "': expected " + expected + ", got '"
                        + text + "'", e);
            }
        }
    }
}
