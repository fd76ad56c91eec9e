package dev.sluice.jersey;

import dev.sluice.rules.match.RequestView;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Cookie;
import jakarta.ws.rs.core.UriInfo;
import java.lang.reflect.Method;
import java.net.URI;
import java.security.Principal;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The rules' view of a JAX-RS request after matching: the path relative to the application's base URI (what
 * {@code @Path} sees), path parameters from the matched template, the principal from the {@code SecurityContext}
 * that authentication filters set, and the client's address from the servlet request ({@link ServletAddressCapture});
 * outside a servlet container the address is unknown and reads as {@value #UNKNOWN_ADDRESS}.
 */
final class JerseyRequestView implements RequestView {

    static final String UNKNOWN_ADDRESS = "0.0.0.0";

    private final ContainerRequestContext request;
    private final Method resourceMethod;

    JerseyRequestView(ContainerRequestContext request, Method resourceMethod) {
        this.request = request;
        this.resourceMethod = resourceMethod;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String rawPath() {
        return "/" + request.getUriInfo().getPath(false);
    }

    /**
     * The request URI's authority, as the container took it (in a servlet container, its server name and port: from
     * HTTP/2's {@code :authority}, an absolute request line or {@code Host}), with its scheme's default port when it
     * names none.
     */
    @Override
    public @Nullable String host() {
        URI uri = request.getUriInfo().getRequestUri();
        String host = uri.getHost();
        if (host == null) {
            return uri.getRawAuthority();
        }
        int port = uri.getPort() >= 0 ? uri.getPort() : defaultPort(uri.getScheme());
        return port > 0 ? host + ":" + port : host;
    }

    /** The port of {@code scheme} when a URI names none: 80 for http, 443 for https, else none (-1). */
    private static int defaultPort(@Nullable String scheme) {
        if ("https".equalsIgnoreCase(scheme)) {
            return 443;
        }
        return "http".equalsIgnoreCase(scheme) ? 80 : -1;
    }

    @Override
    public List<String> headers(String name) {
        List<String> values = request.getHeaders().get(name);
        return values == null ? List.of() : values;
    }

    @Override
    public @Nullable String cookie(String name) {
        Cookie cookie = request.getCookies().get(name);
        return cookie == null ? null : cookie.getValue();
    }

    @Override
    public @Nullable String queryParameter(String name) {
        return request.getUriInfo().getQueryParameters(true).getFirst(name);
    }

    @Override
    public String remoteAddress() {
        return request.getProperty(ServletAddressCapture.PROPERTY) instanceof String address ? address
                : UNKNOWN_ADDRESS;
    }

    @Override
    public @Nullable String principalName() {
        Principal principal = request.getSecurityContext().getUserPrincipal();
        return principal == null ? null : principal.getName();
    }

    @Override
    public @Nullable String pathParameter(String name) {
        UriInfo uri = request.getUriInfo();
        return uri.getPathParameters(true).getFirst(name);
    }

    @Override
    public Method resourceMethod() {
        return resourceMethod;
    }
}
