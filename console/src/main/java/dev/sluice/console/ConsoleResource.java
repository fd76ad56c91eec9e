package dev.sluice.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.http.OperationsGuard;
import dev.sluice.http.RefusedBodies;
import dev.sluice.store.LimitOverride;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.CacheControl;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The console's endpoints, under {@code console}: the page and its assets, and the JSON API (the cluster's figures,
 * the overrides set and removed). Every answer passes the
 * {@link OperationsGuard} first. Stateless apart from the console; thread-safe.
 */
@Path("console")
public final class ConsoleResource {

    private static final String PAGE = "page/";
    private static final String BEARER_CHALLENGE = "Bearer realm=\"sluice-console\"";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The longest override body read; an override's texts have at most {@value LimitOverride#MAX_TEXT_LENGTH}. */
    static final int MAX_BODY_BYTES = 16 * 1024;

    private final Console console;
    private final OperationsGuard guard;

    ConsoleResource(Console console, OperationsGuard guard) {
        this.console = console;
        this.guard = guard;
    }

    /** The page; {@code console} without its slash is redirected to {@code console/}, so relative URLs resolve. */
    @GET
    public Response page(@Context UriInfo uri) {
        checkPage();
        URI request = uri.getRequestUri();
        if (!request.getRawPath().endsWith("/")) {
            return Response.seeOther(URI.create(request.getRawPath() + "/")).build();
        }
        return asset("console.html", MediaType.TEXT_HTML + ";charset=utf-8");
    }

    /** The page's script. */
    @GET
    @Path("console.js")
    public Response script() {
        checkPage();
        return asset("console.js", "text/javascript;charset=utf-8");
    }

    /**
     * The rule cards and charts, shared by the page and other pages of the application (the demo's live page): code
     * only, so served even while the console is off.
     */
    @GET
    @Path("cards.js")
    public Response cards() {
        return asset("cards.js", "text/javascript;charset=utf-8");
    }

    /** The page's style. */
    @GET
    @Path("console.css")
    public Response style() {
        checkPage();
        return asset("console.css", "text/css;charset=utf-8");
    }

    /** The JSON API's OpenAPI document (it holds no figures: served as the page is). */
    @GET
    @Path("openapi.json")
    public Response openApi() {
        checkPage();
        return asset("openapi.json", MediaType.APPLICATION_JSON);
    }

    /** Every instance's figures summed ({@link ClusterView}). */
    @GET
    @Path("cluster")
    public Response cluster(@Context HttpHeaders headers, @Context SecurityContext security) {
        check(headers, security);
        return json(200, console.cluster());
    }

    /**
     * Sets an override ({@link OverrideRequest}), checked against the rules in force: 201 and the override, or 400
     * naming what is wrong. Set by the authenticated user, or else by the body's {@code setBy}. The caller's access is
     * checked before the body is read; then a body that is not JSON by its {@code Content-Type} is a 415 (a page of
     * another site cannot have a browser send a JSON body without asking, and the console never says yes), and one of
     * more than {@value #MAX_BODY_BYTES} bytes a 413, kept no further (the rest dropped, {@link #closing}).
     */
    @POST
    @Path("overrides")
    public Response setOverride(InputStream body, @Context HttpHeaders headers, @Context SecurityContext security) {
        try {
            check(headers, security);
        } catch (WebApplicationException refused) {
            throw new WebApplicationException(closing(refused.getResponse(), body));
        }
        @Nullable MediaType type = headers.getMediaType();
        if (type == null || !type.getType().equalsIgnoreCase("application")
                || !type.getSubtype().equalsIgnoreCase("json")) {
            return closing(problem(415, "Unsupported Media Type", "an override is a JSON body: send it with"
                    + " Content-Type: " + MediaType.APPLICATION_JSON), body);
        }
        if (headers.getLength() > MAX_BODY_BYTES) {
            return tooLarge(body);
        }
        try {
            byte[] read = body.readNBytes(MAX_BODY_BYTES + 1);
            if (read.length > MAX_BODY_BYTES) {
                return tooLarge(body);
            }
            OverrideRequest request = JSON.readValue(read, OverrideRequest.class);
            @Nullable String who = security.getUserPrincipal() != null ? security.getUserPrincipal().getName()
                    : request.setBy();
            return json(201, console.setOverride(request.toBuilder(who == null ? "" : who)));
        } catch (JsonProcessingException e) {
            return problem(400, "Bad Request", "the body is not an override: " + e.getOriginalMessage());
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return problem(400, "Bad Request", String.valueOf(e.getMessage()));
        } catch (IOException e) {
            return problem(400, "Bad Request", "the body could not be read to its end");
        }
    }

    /**
     * Removes the override of {@code rule} and {@code key} (in clear or as its mask; absent for the rule's own): 200
     * and the override removed, or 404.
     */
    @DELETE
    @Path("overrides")
    public Response removeOverride(@QueryParam("rule") @Nullable String rule, @QueryParam("key") @Nullable String key,
                                   @QueryParam("by") @Nullable String by, @Context HttpHeaders headers,
                                   @Context SecurityContext security) {
        check(headers, security);
        if (rule == null || rule.isBlank()) {
            return problem(400, "Bad Request", "the query parameter 'rule' names the override's rule");
        }
        if (by != null && (by.chars().anyMatch(Character::isISOControl)
                || by.length() > LimitOverride.MAX_TEXT_LENGTH)) {
            // Who removed an override goes into the store's log line: one line, as an override's reason and setter.
            return problem(400, "Bad Request", "the query parameter 'by' must be one line of at most "
                    + LimitOverride.MAX_TEXT_LENGTH + " characters, without control characters");
        }
        String who = security.getUserPrincipal() != null ? security.getUserPrincipal().getName()
                : by != null && !by.isBlank() ? by.strip() : "console";
        return console.removeOverride(rule, key == null ? "" : key, who).map(removed -> json(200, removed))
                .orElseGet(() -> problem(404, "Not Found", "no override of that rule and key is in force"));
    }

    private static Response json(int status, Object body) {
        try {
            return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(JSON.writeValueAsString(body))
                    .cacheControl(noStore()).build();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an answer is always writable", e);
        }
    }

    /**
     * The page and its assets hold no figures: they are served to anyone once the console is on, so that the page
     * can ask for the token; the figures need it.
     */
    private void checkPage() {
        if (!guard.enabled()) {
            throw new WebApplicationException(problem(404, "Not Found", "No such resource."));
        }
    }

    private void check(HttpHeaders headers, SecurityContext security) {
        @Nullable String authorization = headers.getHeaderString(HttpHeaders.AUTHORIZATION);
        switch (guard.check(authorization, security.getUserPrincipal() != null, security::isUserInRole)) {
            case ALLOWED -> {
            }
            case OFF -> throw new WebApplicationException(problem(404, "Not Found", "No such resource."));
            case FORBIDDEN -> throw new WebApplicationException(problem(403, "Forbidden",
                    "The console needs the role that it was configured with."));
            case UNAUTHORIZED -> throw new WebApplicationException(Response.fromResponse(problem(401,
                    "Unauthorized", "The console needs " + (guard.byToken() ? "the operations bearer token"
                            + (guard.byRole() ? " or the operations role" : "")
                            : "an authenticated user in the operations role") + "."))
                    .header(HttpHeaders.WWW_AUTHENTICATE, guard.challenge(BEARER_CHALLENGE, "sluice-console"))
                    .build());
            default -> throw new IllegalStateException("unknown verdict");
        }
    }

    /** The 413 of a body too long ({@link #closing}). */
    private static Response tooLarge(InputStream body) {
        return closing(problem(413, "Content Too Large", "an override's body has at most " + MAX_BODY_BYTES
                + " bytes"), body);
    }

    /** {@code refusal}, closing the connection, once the rest of {@code body} is dropped ({@link RefusedBodies}). */
    private static Response closing(Response refusal, InputStream body) {
        RefusedBodies.drain(body);
        return Response.fromResponse(refusal).header("Connection", "close").build();
    }

    private static Response problem(int status, String title, String detail) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "about:blank");
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        try {
            return Response.status(status).type("application/problem+json").entity(JSON.writeValueAsString(body))
                    .build();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a problem body is always writable", e);
        }
    }

    private static Response asset(String name, String type) {
        try (@Nullable InputStream in = ConsoleResource.class.getResourceAsStream(PAGE + name)) {
            if (in == null) {
                throw new IllegalStateException("the console jar lacks " + PAGE + name);
            }
            return Response.ok(in.readAllBytes(), type).cacheControl(noStore()).build();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + PAGE + name, e);
        }
    }

    private static CacheControl noStore() {
        CacheControl control = new CacheControl();
        control.setNoStore(true);
        return control;
    }
}
