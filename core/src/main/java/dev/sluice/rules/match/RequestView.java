package dev.sluice.rules.match;

import java.lang.reflect.Method;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the rules see of an HTTP request, independent of the Servlet or JAX-RS API; adapters implement it over their
 * request type.
 *
 * <p>Values are as received: the rules normalize the path, canonicalize addresses and bound the length of keys
 * themselves, so an implementation should not. An attribute the request lacks is {@code null} (these methods are
 * called per request and rule, where an {@code Optional} would only add allocations). It is used by one thread for
 * one request and need not be thread-safe.
 */
public interface RequestView {

    /** The HTTP method, such as {@code GET}. */
    String method();

    /**
     * The request's path inside the application in raw form: percent-escapes, dot segments and path parameters
     * ({@code ;jsessionid=}) may be left as sent, since the rules resolve them as the container does; a query is
     * ignored.
     */
    String rawPath();

    /**
     * The authority the request was sent to, as the server took it: from the request line's absolute URI, HTTP/2's
     * {@code :authority} or the {@code Host} header, with the port the request reached (its scheme's default when
     * it named none): {@code host:port} or {@code [v6]:port} (see {@link HostPattern}); a request without any is
     * given the server's own name or address, as the Servlet API's server name is. Null when not known, which the
     * rules take as a host that no host rule names.
     */
    @Nullable String host();

    /** Every value of the header named {@code name} (case-insensitive), in the order received; empty when absent. */
    List<String> headers(String name);

    /** The value of the cookie named {@code name}; null when absent. */
    @Nullable String cookie(String name);

    /** The first value of the query parameter {@code name}, decoded; null when absent. */
    @Nullable String queryParameter(String name);

    /** The IP address of the socket's peer, as a literal. */
    String remoteAddress();

    /** The authenticated principal's name; null when the request is anonymous. */
    default @Nullable String principalName() {
        return null;
    }

    /** The value of path parameter {@code name} as matched by the adapter's router; null when not known. */
    default @Nullable String pathParameter(String name) {
        return null;
    }

    /** The resource method the request was routed to (JAX-RS); null when not known. */
    default @Nullable Method resourceMethod() {
        return null;
    }

    /** The first value of the header {@code name}; null when absent. */
    default @Nullable String header(String name) {
        List<String> values = headers(name);
        return values.isEmpty() ? null : values.get(0);
    }
}
