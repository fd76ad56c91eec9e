package dev.sluice.jersey;

import dev.sluice.rules.RequestView;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Cookie;
import jakarta.ws.rs.core.UriInfo;
import java.lang.reflect.Method;
import java.security.Principal;
import java.util.List;

/**
 * The rules' view of a JAX-RS request after matching: the path relative to the application's base URI (what
 * {@code @Path} sees), path parameters from the matched template, the principal from the {@code SecurityContext}
 * that authentication filters set, and the client's address from the servlet request.
 */
final class JerseyRequestView implements RequestView {

    private final ContainerRequestContext request;
    private final Method resourceMethod;
    private final HttpServletRequest servletRequest;

    JerseyRequestView(ContainerRequestContext request, Method resourceMethod, HttpServletRequest servletRequest) {
        this.request = request;
        this.resourceMethod = resourceMethod;
        this.servletRequest = servletRequest;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String rawPath() {
        return "/" + request.getUriInfo().getPath(false);
    }

    @Override
    public String host() {
        String host = request.getHeaderString("Host");
        return host != null ? host : request.getUriInfo().getRequestUri().getRawAuthority();
    }

    @Override
    public List<String> headers(String name) {
        List<String> values = request.getHeaders().get(name);
        return values == null ? List.of() : values;
    }

    @Override
    public String cookie(String name) {
        Cookie cookie = request.getCookies().get(name);
        return cookie == null ? null : cookie.getValue();
    }

    @Override
    public String queryParameter(String name) {
        return request.getUriInfo().getQueryParameters(true).getFirst(name);
    }

    @Override
    public String remoteAddress() {
        return servletRequest.getRemoteAddr();
    }

    @Override
    public String principalName() {
        Principal principal = request.getSecurityContext().getUserPrincipal();
        return principal == null ? null : principal.getName();
    }

    @Override
    public String pathParameter(String name) {
        UriInfo uri = request.getUriInfo();
        return uri.getPathParameters(true).getFirst(name);
    }

    @Override
    public Method resourceMethod() {
        return resourceMethod;
    }
}
