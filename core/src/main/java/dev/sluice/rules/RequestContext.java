package dev.sluice.rules;

import java.lang.reflect.Method;
import java.util.Locale;

/**
 * One request as the rules see it: the view, its path normalized once, and the client address resolved at most once.
 * Confined to the thread evaluating the request.
 */
final class RequestContext {

    private final RequestView view;
    private final ClientAddresses clientAddresses;
    private final NormalizedPath path;
    private String method;
    private String host;
    private boolean clientResolved;
    private byte[] clientAddress;
    private String ipKey;

    RequestContext(RequestView view, ClientAddresses clientAddresses) {
        this.view = view;
        this.clientAddresses = clientAddresses;
        this.path = NormalizedPath.of(view.rawPath());
    }

    NormalizedPath path() {
        return path;
    }

    /** The HTTP method, upper case. */
    String method() {
        if (method == null) {
            method = view.method() == null ? "" : view.method().toUpperCase(Locale.ROOT);
        }
        return method;
    }

    String host() {
        if (host == null) {
            host = view.host() == null ? "" : Rule.normalizeHost(view.host());
        }
        return host;
    }

    Method resourceMethod() {
        return view.resourceMethod();
    }

    /** The client address as a key, made once per request however many rules key by it. */
    private String ipKey() {
        if (ipKey == null) {
            ipKey = KeyText.bound(ClientAddresses.format(clientAddress(), view.remoteAddress()));
        }
        return ipKey;
    }

    byte[] clientAddress() {
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
    String resolve(KeySpec key, PathPattern pattern) {
        return switch (key.kind()) {
            case IP -> ipKey();
            case CONSTANT -> "*";
            case COMPOSITE -> resolveComposite(key, pattern);
            default -> {
                String value = attribute(key, pattern);
                yield value == null || value.isEmpty() ? null : KeyText.bound(value);
            }
        };
    }

    private String resolveComposite(KeySpec key, PathPattern pattern) {
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

    private String attribute(KeySpec key, PathPattern pattern) {
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
