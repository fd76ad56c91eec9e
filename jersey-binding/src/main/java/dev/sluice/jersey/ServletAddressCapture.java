package dev.sluice.jersey;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Context;

/**
 * Copies the client's address from the servlet request into the request property {@link #PROPERTY}: JAX-RS has no
 * client address of its own, and Jersey injects the servlet request only into providers it instantiates (not into
 * the per-method filter instances a {@code DynamicFeature} registers). Registered by class, and only when the servlet
 * API is present.
 */
@PreMatching
final class ServletAddressCapture implements ContainerRequestFilter {

    static final String PROPERTY = "dev.sluice.jersey.remoteAddress";

    @Context
    private HttpServletRequest servletRequest;

    @Override
    public void filter(ContainerRequestContext request) {
        if (servletRequest == null) {
            // Jersey without a servlet container injects nothing: no exception made and caught per request.
            return;
        }
        try {
            request.setProperty(PROPERTY, servletRequest.getRemoteAddr());
        } catch (IllegalStateException | NullPointerException notInAServletContainer) {
            // No servlet request behind this one: the address stays unknown.
        }
    }

    /** Whether the servlet API is on the class path. */
    static boolean available() {
        try {
            Class.forName("jakarta.servlet.http.HttpServletRequest", false,
                    ServletAddressCapture.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
