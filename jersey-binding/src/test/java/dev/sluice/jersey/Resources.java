package dev.sluice.jersey;

import dev.sluice.annotation.RateLimitExempt;
import dev.sluice.annotation.RateLimited;
import dev.sluice.engine.Evaluation;
import dev.sluice.http.RateLimitResponse;
import dev.sluice.servlet.HostileInput;
import jakarta.annotation.Priority;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;
import java.util.concurrent.atomic.AtomicInteger;

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
    /** One method per kind of key a request can leave out, each 2 per minute. */
    @Path("/keyed")
    public static class Keyed {

        @GET
        @Path("/header")
        @RateLimited(id = "by-header", permits = 2, period = "1m", key = "header:X-Api-Key")
        public String header() {
            return "header";
        }

        @GET
        @Path("/cookie")
        @RateLimited(id = "by-cookie", permits = 2, period = "1m", key = "cookie:session")
        public String cookie() {
            return "cookie";
        }

        @GET
        @Path("/query")
        @RateLimited(id = "by-query", permits = 2, period = "1m", key = "query:api_key")
        public String query() {
            return "query";
        }

        @GET
        @Path("/principal")
        @RateLimited(id = "by-principal", permits = 2, period = "1m", key = "principal")
        public String principal() {
            return "principal";
        }
    }

    @Path("/plain")
    public static class Plain {
        @GET
        public String get() {
            return "plain";
        }
    }

    /**
     * The hostile-input tests' login resource ({@link HostileInput}), unannotated: limited by a rules file. Answers
     * with the keys it was counted under; counts the requests it serves (register an instance).
     */
    @Path(HostileInput.LOGIN)
    public static class Login {
        private final AtomicInteger served = new AtomicInteger();

        @GET
        @Produces(MediaType.TEXT_PLAIN)
        public String login(@Context HttpServletRequest request) {
            served.incrementAndGet();
            return HostileInput.keys((Evaluation) request.getAttribute(RateLimitResponse.EVALUATION_ATTRIBUTE));
        }

        int served() {
            return served.get();
        }
    }

    /** The login resource limited by its annotation, as {@link HostileInput} describes. */
    @Path(HostileInput.LOGIN)
    @RateLimited(id = "login", permits = HostileInput.LOGIN_LIMIT, period = "1h", key = "ip")
    public static class LimitedLogin extends Login {
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
