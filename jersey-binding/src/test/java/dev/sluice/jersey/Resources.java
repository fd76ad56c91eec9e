package dev.sluice.jersey;

import dev.sluice.annotation.RateLimitExempt;
import dev.sluice.annotation.RateLimited;
import jakarta.annotation.Priority;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;

/** The resources the Jersey binding tests deploy. */
final class Resources {

    private Resources() {
    }

    /** A class-level limit, overridden per method by a path-parameter key and a principal key; one exempt method. */
    @Path("/items")
    @RateLimited(id = "items", permits = 3, period = "1m")
    public static class Items {

        @GET
        public String list() {
            return "list";
        }

        @GET
        @Path("/by-id/{id}")
        @RateLimited(id = "item", permits = 2, period = "1m", key = "path:id")
        public String one(@PathParam("id") String id) {
            return "item " + id;
        }

        @GET
        @Path("/mine")
        @RateLimited(id = "mine", permits = 1, period = "1m", key = "principal")
        public String mine() {
            return "mine";
        }

        @GET
        @Path("/health")
        @RateLimitExempt
        public String health() {
            return "ok";
        }
    }

    /** No annotations: limited only by rules files. */
    @Path("/plain")
    public static class Plain {
        @GET
        public String get() {
            return "plain";
        }
    }

    /** An annotation mistake: a period that is no duration. */
    @Path("/broken")
    public static class Broken {
        @GET
        @RateLimited(permits = 1, period = "1 hour")
        public String get() {
            return "never deployed";
        }
    }

    /** Test authentication: the user named by {@code X-User}, if any, becomes the request's principal. */
    @PreMatching
    @Priority(Priorities.AUTHENTICATION)
    public static class HeaderAuthentication implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            String user = request.getHeaderString("X-User");
            if (user == null) {
                return;
            }
            Principal principal = () -> user;
            request.setSecurityContext(new SecurityContext() {
                @Override
                public Principal getUserPrincipal() {
                    return principal;
                }

                @Override
                public boolean isUserInRole(String role) {
                    return false;
                }

                @Override
                public boolean isSecure() {
                    return false;
                }

                @Override
                public String getAuthenticationScheme() {
                    return "X-User";
                }
            });
        }
    }
}
