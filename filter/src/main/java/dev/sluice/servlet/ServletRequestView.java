package dev.sluice.servlet;

import dev.sluice.rules.RequestView;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * The rules' view of a servlet request. Query parameters are read from the query string itself, never through
 * {@code getParameter}, which would consume a form body the application has yet to read.
 */
final class ServletRequestView implements RequestView {

    private final HttpServletRequest request;

    ServletRequestView(HttpServletRequest request) {
        this.request = request;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    /** The path inside the application: the request URI without the context path, still undecoded. */
    @Override
    public String rawPath() {
        String uri = request.getRequestURI();
        String context = request.getContextPath();
        return !context.isEmpty() && uri.startsWith(context) ? uri.substring(context.length()) : uri;
    }

    @Override
    public String host() {
        return request.getHeader("Host");
    }

    @Override
    public List<String> headers(String name) {
        Enumeration<String> values = request.getHeaders(name);
        return values == null ? List.of() : Collections.list(values);
    }

    @Override
    public String cookie(String name) {
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
    public String queryParameter(String name) {
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
    public String principalName() {
        Principal principal = request.getUserPrincipal();
        return principal == null ? null : principal.getName();
    }
}
