package dev.sluice.rules;

import dev.sluice.rules.match.HostPattern;
import dev.sluice.rules.match.PathPattern;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Which requests a rule matches: its path patterns or resource methods, restricted to some HTTP methods and a host.
 * Immutable. Matching in detail: {@code docs/design/rules.md}.
 */
public final class RequestMatch {

    private static final Pattern HTTP_METHOD = Pattern.compile("[A-Za-z]{1,20}");

    private final List<PathPattern> paths;
    private final Set<String> methods;
    private final @Nullable HostPattern host;
    private final Set<Method> resourceMethods;

    RequestMatch(List<PathPattern> paths, Set<String> methods, @Nullable HostPattern host,
                 Set<Method> resourceMethods) {
        this.paths = List.copyOf(paths);
        this.methods = Set.copyOf(methods);
        this.host = host;
        this.resourceMethods = Set.copyOf(resourceMethods);
    }

    /**
     * {@code method} upper case.
     *
     * @throws IllegalArgumentException for a method that is not 1 to 20 letters
     */
    static String httpMethod(String method) {
        if (!HTTP_METHOD.matcher(method).matches()) {
            throw new InvalidValueException("methods", "an HTTP method such as \"GET\"",
                    InvalidValueException.quoted(method));
        }
        return method.toUpperCase(Locale.ROOT);
    }

    /**
     * The host pattern {@code text}.
     *
     * @throws IllegalArgumentException for a host pattern that is none
     */
    static HostPattern host(String text) {
        try {
            return HostPattern.parse(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidValueException("host", HostPattern.EXPECTED, InvalidValueException.quoted(text));
        }
    }

    /** The path patterns as declared, such as {@code /api/users/{id}} or {@code /api/**}. */
    public List<String> paths() {
        return paths.stream().map(PathPattern::toString).toList();
    }

    /** The path patterns, parsed. */
    public List<PathPattern> pathPatterns() {
        return paths;
    }

    /** The HTTP methods matched, upper case; empty for any. */
    public Set<String> methods() {
        return methods;
    }

    /** The host matched; empty for any. */
    public Optional<HostPattern> host() {
        return Optional.ofNullable(host);
    }

    /** Resource methods matched (from annotations), whatever their path. */
    public Set<Method> resourceMethods() {
        return resourceMethods;
    }

    /** Whether no request can match: neither a path nor a resource method. */
    public boolean matchesNothing() {
        return paths.isEmpty() && resourceMethods.isEmpty();
    }

    /** This match also matching {@code more} resource methods. */
    RequestMatch withResourceMethods(Collection<Method> more) {
        Set<Method> all = new LinkedHashSet<>(resourceMethods);
        all.addAll(more);
        return new RequestMatch(paths, methods, host, all);
    }

    @Override
    public String toString() {
        return paths + (resourceMethods.isEmpty() ? "" : " " + resourceMethods.size() + " methods");
    }
}
