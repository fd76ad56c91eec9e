package dev.sluice.servlet;

import dev.sluice.rules.match.RequestView;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Method;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The rules' view of a servlet request; its route (for annotation rules) from the settings' {@link RequestRoutes}.
 * Query parameters are read from the query string itself, never through
 * {@code getParameter}, which would consume a form body the application has yet to read.
 */
final class ServletRequestView implements RequestView {

    private final HttpServletRequest request;
    private final RequestRoutes routes;
    /** The request's route once asked for; null before. */
    private RequestRoutes.@Nullable Route route;
    private boolean routed;

    ServletRequestView(HttpServletRequest request, RequestRoutes routes) {
        this.request = request;
        this.routes = routes;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    /*
     * Why the servlet path and path info, not the request URI minus the context path: the container routes a request
     * into this application by its decoded, dot-resolved path, but the request URI is as the client wrote it. Written
     * "/%61pp/api/login", "/x/../app/api/login" or "/app/../app/api/login", a request reaches the application at
     * "/app" and its servlet for "/api/login", yet the URI does not start with "/app" (or does, and then climbs out of
     * it), so cutting the context path off the URI left the rules "/app/api/login", which no rule of the application
     * matches: the request went through uncounted. The servlet path and path info are the path the container routed
     * by; the characters the rules read as syntax in a raw path are escaped again, so nothing is decoded twice.
     */

    /** The path inside the application as the container routed it, escaped as a raw path. */
    @Override
    public String rawPath() {
        String pathInfo = request.getPathInfo();
        return escapeSyntax(pathInfo == null ? request.getServletPath() : request.getServletPath() + pathInfo);
    }

    /** The decoded path with "%", ";", "?" and "#" percent-escaped: a raw path that decodes to exactly it. */
    private static String escapeSyntax(String decodedPath) {
        StringBuilder raw = null;
        for (int i = 0; i < decodedPath.length(); i++) {
            char c = decodedPath.charAt(i);
            String escape = switch (c) {
                case '%' -> "%25";
                case ';' -> "%3B";
                case '?' -> "%3F";
                case '#' -> "%23";
                default -> null;
            };
            if (escape != null) {
                if (raw == null) {
                    raw = new StringBuilder(decodedPath.length() + 8).append(decodedPath, 0, i);
                }
                raw.append(escape);
            } else if (raw != null) {
                raw.append(c);
            }
        }
        return raw == null ? decodedPath : raw.toString();
    }

    /*
     * Why the server name and port, not the Host header: over HTTP/2 the authority is the :authority pseudo-header,
     * which Jetty does not turn into a Host header; a request line may carry an absolute URI whose authority the
     * server takes over Host's; and HTTP/1.0 may send no Host at all. The server name is the authority the container
     * took, whichever it came from (the server's own name or address when there was none), and the server port the
     * port the request named, or its scheme's default.
     */

    /** The authority as the container took it: {@code host:port}, an IPv6 literal in brackets. */
    @Override
    public @Nullable String host() {
        String name = request.getServerName();
        if (name == null || name.isEmpty()) {
            return null;
        }
        String host = name.indexOf(':') >= 0 && !name.startsWith("[") ? "[" + name + "]" : name;
        int port = request.getServerPort();
        return port > 0 ? host + ":" + port : host;
    }

    @Override
    public String header(String name) {
        return request.getHeader(name);
    }

    @Override
    public List<String> headers(String name) {
        Enumeration<String> values = request.getHeaders(name);
        if (values == null || !values.hasMoreElements()) {
            return List.of();
        }
        // Most headers come once (a forwarding header, as a proxy writes it): no list to grow for them.
        String first = values.nextElement();
        if (!values.hasMoreElements()) {
            return List.of(first);
        }
        List<String> all = new ArrayList<>(4);
        all.add(first);
        while (values.hasMoreElements()) {
            all.add(values.nextElement());
        }
        return all;
    }

    @Override
    public @Nullable String cookie(String name) {
        Cookie[] cookies = request.getCookies();
        if (cookies != null) {
            for (Cookie cookie : cookies) {
                if (cookie.getName().equals(name)) {
                    return cookie.getValue();
                }
            }
        }
        return null;
    }

    @Override
    public @Nullable String queryParameter(String name) {
        String query = request.getQueryString();
        if (query == null) {
            return null;
        }
        for (String pair : query.split("&")) {
            int equals = pair.indexOf('=');
            String pairName = equals < 0 ? pair : pair.substring(0, equals);
            try {
                if (URLDecoder.decode(pairName, StandardCharsets.UTF_8).equals(name)) {
                    return equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
                }
            } catch (IllegalArgumentException malformedEscape) {
                // A parameter the client could not encode is not the one asked for.
            }
        }
        return null;
    }

    @Override
    public String remoteAddress() {
        return request.getRemoteAddr();
    }

    @Override
    public @Nullable String principalName() {
        Principal principal = request.getUserPrincipal();
        return principal == null ? null : principal.getName();
    }

    /** The handler method the application routes the request to, looked up once ({@link RequestRoutes}). */
    @Override
    public @Nullable Method resourceMethod() {
        RequestRoutes.Route known = route();
        return known == null ? null : known.method();
    }

    @Override
    public @Nullable String pathParameter(String name) {
        RequestRoutes.Route known = route();
        return known == null ? null : known.pathParameters().get(name);
    }

    private RequestRoutes.@Nullable Route route() {
        if (!routed) {
            routed = true;
            route = routes.route(request).orElse(null);
        }
        return route;
    }
}
