package dev.sluice.engine;

import dev.sluice.rules.KeySpec;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.rules.match.HostPattern;
import dev.sluice.rules.match.NormalizedPath;
import dev.sluice.rules.match.PathPattern;
import dev.sluice.rules.match.RequestView;
import dev.sluice.store.CounterKeys;
import java.lang.reflect.Method;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One request as the rules see it: the view, its path normalized once, and its method, host and client address
 * resolved at most once however many rules ask. Confined to the thread evaluating the request.
 */
final class RequestContext {

    /** The header that names the method a {@code POST} stands for, in Jersey's method-override filter. */
    static final String METHOD_OVERRIDE_HEADER = "X-HTTP-Method-Override";
    /** The query or form parameter that names it, in Jersey's and Spring's. */
    static final String METHOD_OVERRIDE_PARAMETER = "_method";

    private final RequestView view;
    private final ClientAddresses clientAddresses;
    private final NormalizedPath path;
    private @Nullable String method;
    private HostPattern.@Nullable Authority authority;
    private boolean clientResolved;
    private byte @Nullable [] clientAddress;
    private @Nullable String ipKey;

    RequestContext(RequestView view, ClientAddresses clientAddresses) {
        this.view = view;
        this.clientAddresses = clientAddresses;
        this.path = NormalizedPath.of(view.rawPath());
    }

    NormalizedPath path() {
        return path;
    }

    /** The request as the adapter sees it. */
    RequestView view() {
        return view;
    }

    /**
     * The method a method-override filter turns this request into: for a {@code POST}, the
     * {@code X-HTTP-Method-Override} header or else the {@code _method} query parameter, upper case, as Jersey's
     * {@code HttpMethodOverrideFilter} and Spring's {@code HiddenHttpMethodFilter} read them; empty for none.
     */
    String overriddenMethod() {
        String override = view.header(METHOD_OVERRIDE_HEADER);
        if (override == null || override.isBlank()) {
            override = view.queryParameter(METHOD_OVERRIDE_PARAMETER);
        }
        return override == null ? "" : override.trim().toUpperCase(Locale.ROOT);
    }

    /** The HTTP method, upper case; empty when the adapter gave none. */
    String method() {
        String known = method;
        if (known == null) {
            String sent = view.method();
            known = sent == null ? "" : sent.toUpperCase(Locale.ROOT);
            method = known;
        }
        return known;
    }

    /** The host and port the request was sent to, as {@link HostPattern}s compare them. */
    HostPattern.Authority authority() {
        HostPattern.Authority known = authority;
        if (known == null) {
            known = HostPattern.Authority.of(view.host());
            authority = known;
        }
        return known;
    }

    @Nullable Method resourceMethod() {
        return view.resourceMethod();
    }

    /** The client address as a key, made once per request however many rules key by it. */
    String clientAddressKey() {
        String known = ipKey;
        if (known == null) {
            known = CounterKeys.part(clientAddresses.key(clientAddress(), view));
            ipKey = known;
        }
        return known;
    }

    byte @Nullable [] clientAddress() {
        if (!clientResolved) {
            clientAddress = clientAddresses.resolveBytes(view);
            clientResolved = true;
        }
        return clientAddress;
    }

    /**
     * The bounded key value of {@code key} for this request, with path variables from {@code pattern} (null when
     * matched by resource method); null when the request lacks the attribute.
     */
    @Nullable String resolve(KeySpec key, @Nullable PathPattern pattern) {
        return switch (key.kind()) {
            case IP -> clientAddressKey();
            case CONSTANT -> "*";
            case COMPOSITE -> resolveComposite(key, pattern);
            default -> {
                String value = attribute(key, pattern);
                yield value == null || value.isEmpty() ? null : CounterKeys.part(value);
            }
        };
    }

    private @Nullable String resolveComposite(KeySpec key, @Nullable PathPattern pattern) {
        StringBuilder joined = new StringBuilder();
        for (KeySpec part : key.parts()) {
            String value = resolve(part, pattern);
            if (value == null) {
                return null;
            }
            joined.append(joined.length() == 0 ? "" : "|").append(value);
        }
        return joined.toString();
    }

    private @Nullable String attribute(KeySpec key, @Nullable PathPattern pattern) {
        return switch (key.kind()) {
            case HEADER -> view.header(key.name());
            case COOKIE -> view.cookie(key.name());
            case QUERY -> view.queryParameter(key.name());
            case PRINCIPAL -> view.principalName();
            case PATH -> {
                String captured = pattern == null ? null : pattern.variable(key.name(), path);
                yield captured != null ? captured : view.pathParameter(key.name());
            }
            default -> throw new AssertionError("resolved in resolve(): " + key.kind());
        };
    }
}
