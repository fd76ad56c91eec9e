package dev.sluice.servlet;

import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.rules.RulesException;
import dev.sluice.rules.match.ClientAddresses;
import jakarta.servlet.ServletContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Where the filter's rules come from, by the {@code rules} setting: a file on disk (reloaded while the application
 * runs), a classpath resource, or a resource of the web application (reloaded when the container unpacked it to disk,
 * read once otherwise), merged with the settings' annotation rules. When the settings name trusted proxies, they
 * replace the rules file's client addresses, and an IPv6 key prefix the prefix in force, on every reload too.
 */
final class RuleSource {

    private RuleSource() {
    }

    /** Loads the rules; throws {@link RulesException} (file, line, column) when they are invalid. */
    static ReloadingRuleSet load(FilterSettings settings, @Nullable ServletContext context) {
        ReloadingRuleSet.Builder rules = ReloadingRuleSet.builder().reloadInterval(settings.rulesReloadInterval())
                .annotationRules(settings.annotationRules());
        if (settings.trustedProxies() != null) {
            rules.clientAddresses(ClientAddresses.behindProxies(settings.trustedProxies(),
                    settings.clientAddressHeader()));
        }
        settings.ipv6Prefix().ifPresent(rules::ipv6Prefix);
        String location = settings.rules();
        if (location == null) {
            return rules.build();
        }
        if (location.startsWith("classpath:")) {
            String resource = location.substring("classpath:".length()).replaceFirst("^/", "");
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            return rules.content(location, read(location, loader.getResourceAsStream(resource))).build();
        }
        if (location.startsWith("file:")) {
            return rules.file(Path.of(location.substring("file:".length()))).build();
        }
        if (context == null) {
            return rules.file(Path.of(location)).build();
        }
        String real = context.getRealPath(location);
        return real != null ? rules.file(Path.of(real)).build()
                : rules.content(location, read(location, context.getResourceAsStream(location))).build();
    }

    /** A resource's bytes, from which the rules are parsed as a file's are: text that is not UTF-8 is an error. */
    private static byte[] read(String location, @Nullable InputStream content) {
        if (content == null) {
            throw new IllegalArgumentException("init-param 'rules': no resource at " + location);
        }
        try (content) {
            return content.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the rules at " + location, e);
        }
    }
}
