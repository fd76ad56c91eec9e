package dev.sluice.servlet;

import dev.sluice.rules.ClientAddresses;
import dev.sluice.rules.ReloadingRuleSet;
import dev.sluice.rules.RuleSet;
import dev.sluice.rules.RulesException;
import dev.sluice.rules.RulesFile;
import jakarta.servlet.ServletContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * The filter's rules, loaded from the {@code rules} setting: a file on disk (reloaded while the application runs),
 * a classpath resource, or a resource of the web application (reloaded when the container unpacked it to disk).
 * When the settings name trusted proxies, they replace the rules file's, on every reload too.
 */
final class RuleSource implements Supplier<RuleSet>, AutoCloseable {

    private final Supplier<RuleSet> loaded;
    private final AutoCloseable reloading;
    private final ClientAddresses clientAddresses;
    private volatile Derived derived;

    private RuleSource(Supplier<RuleSet> loaded, AutoCloseable reloading, ClientAddresses clientAddresses) {
        this.loaded = loaded;
        this.reloading = reloading;
        this.clientAddresses = clientAddresses;
    }

    /** A rule set with the settings' client addresses, and the loaded set it was made from. */
    private record Derived(RuleSet from, RuleSet rules) {
    }

    /** Loads the rules; throws {@link RulesException} (file, line, column) when they are invalid. */
    static RuleSource load(FilterSettings settings, ServletContext context) {
        ClientAddresses addresses = settings.trustedProxies() == null ? null
                : ClientAddresses.behindProxies(settings.trustedProxies(), settings.clientAddressHeader());
        String location = settings.rules();
        if (location == null) {
            RuleSet none = RuleSet.empty();
            return new RuleSource(() -> none, () -> { }, addresses);
        }
        if (location.startsWith("classpath:")) {
            String resource = location.substring("classpath:".length()).replaceFirst("^/", "");
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            return fixed(location, loader.getResourceAsStream(resource), addresses);
        }
        Path file = null;
        if (location.startsWith("file:")) {
            file = Path.of(location.substring("file:".length()));
        } else if (context != null) {
            String real = context.getRealPath(location);
            if (real == null) {
                return fixed(location, context.getResourceAsStream(location), addresses);
            }
            file = Path.of(real);
        } else {
            file = Path.of(location);
        }
        ReloadingRuleSet rules = new ReloadingRuleSet(file, List.of(), ReloadingRuleSet.Listener.logging());
        Duration interval = settings.rulesReloadInterval();
        if (!interval.isZero()) {
            rules.start(interval);
        }
        return new RuleSource(rules, rules, addresses);
    }

    private static RuleSource fixed(String location, InputStream content, ClientAddresses addresses) {
        if (content == null) {
            throw new IllegalArgumentException("init-param 'rules': no resource at " + location);
        }
        try (content) {
            // From the bytes, as a file on disk is read: text that is not UTF-8 is an error, not U+FFFD characters.
            RuleSet rules = RulesFile.parse(location, content.readAllBytes()).toRuleSet();
            return new RuleSource(() -> rules, () -> { }, addresses);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the rules at " + location, e);
        }
    }

    @Override
    public RuleSet get() {
        RuleSet current = loaded.get();
        if (clientAddresses == null) {
            return current;
        }
        Derived last = derived;
        if (last == null || last.from() != current) {
            last = new Derived(current, RuleSet.of(current.rules(), clientAddresses));
            derived = last;
        }
        return last.rules();
    }

    @Override
    public void close() throws Exception {
        reloading.close();
    }
}
