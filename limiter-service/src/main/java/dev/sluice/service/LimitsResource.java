package dev.sluice.service;

import static dev.sluice.service.Answers.answer;
import static dev.sluice.service.Answers.counts;
import static dev.sluice.service.Answers.describe;
import static dev.sluice.service.Answers.epochMillisCeil;
import static dev.sluice.service.Answers.millisCeil;
import static dev.sluice.service.Answers.next;
import static dev.sluice.service.Answers.permitRefused;
import static dev.sluice.service.Answers.prefixed;
import static dev.sluice.service.Answers.refusal;
import static dev.sluice.service.Answers.rejected;
import static dev.sluice.service.Answers.rfc3339;
import static dev.sluice.service.Answers.slot;
import static dev.sluice.service.Parameters.concurrency;
import static dev.sluice.service.Parameters.metered;
import static dev.sluice.service.Parameters.rates;
import static dev.sluice.service.Parameters.requireThisPath;
import static dev.sluice.service.Problems.call;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.Durations;
import dev.sluice.internal.json.JsonObject;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/*
 * Each endpoint is one store command, so that an answer costs one round trip to the key's owner:
 * - delay is Command.peek for the request's cost: rejected, its retry-after is when the cost fits (exact for every
 *   limit of a policy: the most restrictive rejection has the longest wait), allowed, it fits now;
 * - increment is Command.record with the request's age, measured on this service's clock: the store reads its own
 *   time, so an instant would mix two clocks. Its decision is what the next one-permit request gets;
 * - acquire is Command.reserve: the slot and its count are taken in one atomic step, so two workers never get one
 *   slot, where two that both asked /delay and both heard "now" would both send;
 * - permits is Command.acquire with the lease as the permit's maximum hold, and its release Command.release by the
 *   permit's id, which the signed token carries with the store key: any instance can release it.
 * - reservations count a request (Command.count, when the id limits requests) and the estimate (Command.estimate) at
 *   once, giving back the one granted when the other refuses: two calls, in parallel. Settles: Settlements.
 */

/**
 * The limiter service's endpoints; see {@link LimiterService}. Public only because Jersey invokes it; not part of
 * Sluice's API. Immutable and thread-safe.
 */
@Path(LimitsResource.PATH)
@Produces(MediaType.APPLICATION_JSON)
public final class LimitsResource {

    /** The service's path under the application's base path. */
    static final String PATH = "limits";

    private static final String OPENAPI = "openapi.json";
    static final String PERMITS = "permits";
    static final String RESERVATIONS = "reservations";

    /** The header that carries a permit's token to its release. */
    static final String PERMIT_HEADER = "Sluice-Permit";

    /** The header that carries a reservation's token to its settle. */
    static final String RESERVATION_HEADER = "Sluice-Reservation";

    private final LimitsFile limits;
    private final CounterStore store;
    private final TimeSource time;
    private final long maxWaitNanos;
    private final long maxFutureSkewNanos;
    private final OperationsAccess operations;
    private final Tokens tokens;
    private final Settlements settlements;
    private final long reservationLifetimeNanos;
    private final String openApi;
    private final String list;

    LimitsResource(LimitsFile limits, CounterStore store, TimeSource time, long maxWaitNanos, long maxFutureSkewNanos,
                   OperationsAccess operations, Tokens tokens, long reservationLifetimeNanos) {
        this.limits = limits;
        this.store = store;
        this.time = time;
        this.maxWaitNanos = maxWaitNanos;
        this.maxFutureSkewNanos = maxFutureSkewNanos;
        this.operations = operations;
        this.tokens = tokens;
        this.settlements = new Settlements(store, time);
        this.reservationLifetimeNanos = reservationLifetimeNanos;
        this.openApi = readOpenApi();
        this.list = describe(limits, maxWaitNanos);
    }

    @GET
    @RequestChecks.OwnAccess
    public String list() {
        return list;
    }

    /** The OpenAPI 3 document of these endpoints, its server being this application's base path. */
    @GET
    @Path(OPENAPI)
    @RequestChecks.OwnAccess
    public String openApi(@Context UriInfo uri) {
        String base = uri.getBaseUri().getRawPath();
        String server = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        return openApi.replace("\"${server}\"", JsonObject.quoted(server.isEmpty() ? "/" : server));
    }

    @GET
    @Path("{id}/delay")
    public String delay(@PathParam("id") String id, @QueryParam("cost") @Nullable String cost) {
        return delay(id, null, cost);
    }

    @GET
    @Path("{id}/{key}/delay")
    public String delay(@PathParam("id") String id, @PathParam("key") @Nullable String key,
                        @QueryParam("cost") @Nullable String cost) {
        LimitsFile.Entry entry = entry(id, key);
        Policy policy = rates(entry);
        long permits = Parameters.cost(cost, entry);
        long now = time.nanos();
        Decision decision = call(() -> store.execute(entry.counterKey(keyOf(key)), Command.peek(policy, permits)));
        if (!decision.allowed() && decision.storeUnavailable()) {
            throw rejected(entry, key, decision, now, "The rate limiter is unavailable.");
        }
        return next(answer(entry, key), decision, permits, now).toString();
    }

    @POST
    @Path("{id}/increment")
    public String increment(@PathParam("id") String id, @QueryParam("at") @Nullable String at,
                            @QueryParam("cost") @Nullable String cost) {
        return increment(id, null, at, cost);
    }

    @POST
    @Path("{id}/{key}/increment")
    public String increment(@PathParam("id") String id, @PathParam("key") @Nullable String key,
                            @QueryParam("at") @Nullable String at, @QueryParam("cost") @Nullable String cost) {
        LimitsFile.Entry entry = entry(id, key);
        Policy policy = rates(entry);
        long permits = Parameters.cost(cost, entry);
        long now = time.nanos();
        long age = Parameters.ageNanos(at, entry, now, maxFutureSkewNanos);
        Decision next = call(() -> store.execute(entry.counterKey(keyOf(key)), Command.record(policy, permits, age)));
        if (next.storeUnavailable()) {
            throw Problems.unavailable();
        }
        return next(answer(entry, key).put("counted", true), next, 1, now).toString();
    }

    @POST
    @Path("{id}/acquire")
    public Response acquire(@PathParam("id") String id, @QueryParam("cost") @Nullable String cost,
                            @QueryParam("maxWaitMs") @Nullable String maxWaitMs) {
        return acquire(id, null, cost, maxWaitMs);
    }

    @POST
    @Path("{id}/{key}/acquire")
    public Response acquire(@PathParam("id") String id, @PathParam("key") @Nullable String key,
                            @QueryParam("cost") @Nullable String cost,
                            @QueryParam("maxWaitMs") @Nullable String maxWaitMs) {
        LimitsFile.Entry entry = entry(id, key);
        Policy policy = rates(entry);
        long permits = Parameters.cost(cost, entry);
        long wait = Parameters.maxWaitNanos(maxWaitMs, maxWaitNanos);
        long now = time.nanos();
        Decision decision = call(() -> store.execute(entry.counterKey(keyOf(key)), Command.reserve(policy, permits,
                wait)));
        if (!decision.allowed()) {
            throw rejected(entry, key, decision, now, null);
        }
        return Response.ok(slot(entry, key, decision, now).toString()).build();
    }

    /**
     * Several acquires in one request, each decided on its own (no all-or-nothing across them: a request that must
     * pass several limits at once belongs to one id with several limits). Every item is checked before any is counted.
     */
    @POST
    @Path("acquire")
    @jakarta.ws.rs.Consumes(MediaType.WILDCARD)
    public String acquireAll(InputStream body) {
        BatchRequest batch = BatchRequest.parse(new String(RequestChecks.readBody(body), StandardCharsets.UTF_8));
        long wait = Parameters.maxWaitNanos(batch.maxWaitMs(), maxWaitNanos);
        List<LimitsFile.Entry> entries = new ArrayList<>();
        List<Long> costs = new ArrayList<>();
        for (int i = 0; i < batch.requests().size(); i++) {
            BatchRequest.Item item = batch.requests().get(i);
            try {
                LimitsFile.Entry entry = entry(item.id(), item.key());
                rates(entry);
                entries.add(entry);
                costs.add(Parameters.cost(item.cost(), entry));
            } catch (Problems.InvalidRequest e) {
                throw e.inItem("requests[" + i + "]");
            } catch (WebApplicationException e) {
                throw new WebApplicationException(prefixed(e.getResponse(), "requests[" + i + "]: "));
            }
        }
        long now = time.nanos();
        List<CompletableFuture<Decision>> decisions = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            LimitsFile.Entry entry = entries.get(i);
            String counterKey = entry.counterKey(keyOf(batch.requests().get(i).key()));
            long cost = costs.get(i);
            Policy policy = rates(entry);
            decisions.add(call(() -> store.executeAsync(counterKey, Command.reserve(policy, cost,
                    wait)).toCompletableFuture()));
        }
        List<String> results = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            int index = i;
            Decision decision = call(() -> decisions.get(index).join());
            LimitsFile.Entry entry = entries.get(i);
            String key = batch.requests().get(i).key();
            results.add(decision.allowed() ? slot(entry, key, decision, now).toString()
                    : refusal(answer(entry, key), decision, now).toString());
        }
        return new JsonObject().putRaw("results", JsonObject.array(results)).toString();
    }

    @GET
    @Path("{id}/state")
    @RequestChecks.OwnAccess
    public String state(@PathParam("id") String id, @Context HttpHeaders headers, @Context SecurityContext security) {
        return state(id, null, headers, security);
    }

    @GET
    @Path("{id}/{key}/state")
    @RequestChecks.OwnAccess
    public String state(@PathParam("id") String id, @PathParam("key") @Nullable String key,
                        @Context HttpHeaders headers, @Context SecurityContext security) {
        operations.check(headers, security);
        LimitsFile.Entry entry = entry(id, key);
        Policy policy = entry.policy().orElseThrow(() -> Problems.invalid("id", "limit '" + entry.id() + "' has no"
                + " rate limits to read"));
        long now = time.nanos();
        Decision state = call(() -> store.execute(entry.counterKey(keyOf(key)), Command.peek(policy, 0)));
        if (state.storeUnavailable()) {
            // A failure policy's answer describes no counter: an operator reading a key must not be shown one.
            throw Problems.unavailable();
        }
        long nextPermit = state.nextPermitNanos();
        return answer(entry, key).put("limit", state.limit()).put("remaining", state.remaining())
                .put("used", state.limit() - state.remaining())
                .put("nextPermitMs", millisCeil(nextPermit)).put("nextPermitAt", epochMillisCeil(now + nextPermit))
                .put("nextPermitAtTime", rfc3339(now + nextPermit))
                .put("resetMs", millisCeil(state.resetAfterNanos())).toString();
    }

    @POST
    @Path("{id}/reset")
    @RequestChecks.OwnAccess
    public Response reset(@PathParam("id") String id, @Context HttpHeaders headers,
                          @Context SecurityContext security) {
        return reset(id, null, headers, security);
    }

    @POST
    @Path("{id}/{key}/reset")
    @RequestChecks.OwnAccess
    public Response reset(@PathParam("id") String id, @PathParam("key") @Nullable String key,
                          @Context HttpHeaders headers, @Context SecurityContext security) {
        operations.check(headers, security);
        LimitsFile.Entry entry = entry(id, key);
        try {
            if (entry.policy().isPresent()) {
                store.execute(entry.counterKey(keyOf(key)), Command.reset());
            }
            if (entry.metered().isPresent()) {
                store.execute(entry.meteredKey(keyOf(key)), Command.reset());
            }
            if (entry.concurrency().isPresent()) {
                store.execute(entry.permitKey(keyOf(key)), Command.reset());
            }
        } catch (UnsupportedOperationException e) {
            throw Problems.notSupported("The application's counter store cannot reset keys.");
        } catch (RuntimeException e) {
            throw Problems.unavailable();
        }
        return Response.noContent().build();
    }

    @POST
    @Path("{id}/" + PERMITS)
    public Response acquirePermit(@PathParam("id") String id, @QueryParam("leaseMs") @Nullable String leaseMs) {
        return acquirePermit(id, null, leaseMs);
    }

    /**
     * Takes a concurrency permit for a lease of {@code leaseMs} (default and most: the limit's maximum hold): 200 with
     * a signed token that releases it through any instance sharing the store and signing key, or 429 when every
     * permit is held (no {@code Retry-After}: nobody knows when a holder ends).
     */
    @POST
    @Path("{id}/{key}/" + PERMITS)
    public Response acquirePermit(@PathParam("id") String id, @PathParam("key") @Nullable String key,
                                  @QueryParam("leaseMs") @Nullable String leaseMs) {
        LimitsFile.Entry entry = entry(id, key);
        ConcurrencyLimit limit = concurrency(entry);
        long lease = Parameters.leaseNanos(leaseMs, limit);
        ConcurrencyLimit leased = lease == limit.maxHoldNanos() ? limit
                : ConcurrencyLimit.of(limit.permits(), Duration.ofNanos(lease)).named(limit.name());
        String storeKey = entry.permitKey(keyOf(key));
        long now = time.nanos();
        Counted held = call(() -> store.executeAsync(storeKey, Command.acquire(leased)).toCompletableFuture().join());
        Decision decision = held.decision();
        if (!decision.allowed()) {
            throw permitRefused(entry, key, decision);
        }
        String token = tokens.sign(new Tokens.Permit(entry.id(), Tokens.keyOf(key), storeKey,
                held.permit()));
        JsonObject answer = counts(answer(entry, key).put("granted", true).put("permit", token), decision,
                decision.remaining());
        long ends = now + lease;
        return Response.ok(answer.put("leaseMs", lease / Parameters.NANOS_PER_MILLI)
                .put("leaseEndsAt", Math.floorDiv(ends, Parameters.NANOS_PER_MILLI))
                .put("leaseEndsAtTime", Instant.ofEpochMilli(Math.floorDiv(ends, Parameters.NANOS_PER_MILLI))
                        .toString()).toString()).build();
    }

    @DELETE
    @Path("{id}/" + PERMITS)
    public Response releasePermit(@PathParam("id") String id, @HeaderParam(PERMIT_HEADER) @Nullable String permit) {
        return releasePermit(id, null, permit);
    }

    /**
     * Releases a permit by its token, sent in the header {@value #PERMIT_HEADER} (never in the path, which access
     * logs keep): 204, also when it was released already or its lease ended (idempotent); 400 naming the header for
     * none, for a token this service did not sign (malformed, altered, signed with another key) or one of another id
     * or key.
     */
    @DELETE
    @Path("{id}/{key}/" + PERMITS)
    public Response releasePermit(@PathParam("id") String id, @PathParam("key") @Nullable String key,
                                  @HeaderParam(PERMIT_HEADER) @Nullable String permit) {
        LimitsFile.Entry entry = entry(id, key);
        ConcurrencyLimit limit = concurrency(entry);
        Tokens.Permit held = tokens.verify(permit).orElseThrow(() -> Problems.invalid(PERMIT_HEADER, permit == null
                ? "expected the token of the permit, as its grant gave it" : "not a permit token of this service:"
                + " malformed, altered, or signed with another key (give every instance the same permitSigningKey)"));
        requireThisPath(PERMIT_HEADER, "a permit", held.id(), held.key(), entry, key);
        held.storePermit().ifPresent(storePermit -> call(() -> store.executeAsync(held.storeKey(),
                Command.release(limit, storePermit))
                .toCompletableFuture().join()));
        return Response.noContent().build();
    }

    @POST
    @Path("{id}/" + RESERVATIONS)
    public Response reserve(@PathParam("id") String id, @QueryParam("estimate") @Nullable String estimate) {
        return reserve(id, null, estimate);
    }

    /**
     * Reserves {@code estimate} of the id's unit (and counts one request, when the id limits requests too), now, all or
     * nothing: 200 with a signed token that settles it through any instance sharing the store and signing key, or 429
     * with {@code Retry-After} when either limit has no room, nothing counted.
     */
    @POST
    @Path("{id}/{key}/" + RESERVATIONS)
    public Response reserve(@PathParam("id") String id, @PathParam("key") @Nullable String key,
                            @QueryParam("estimate") @Nullable String estimate) {
        LimitsFile.Entry entry = entry(id, key);
        Policy units = metered(entry);
        long cost = Parameters.estimate(estimate, entry, units);
        String unitKey = entry.meteredKey(keyOf(key));
        long now = time.nanos();
        CompletableFuture<Counted> reserving = call(() -> store.executeAsync(unitKey, Command.estimate(units, cost, 0))
                .toCompletableFuture());
        Optional<CompletableFuture<Counted>> counting = entry.policy().map(requests -> call(() -> store
                .executeAsync(entry.counterKey(keyOf(key)), Command.count(requests, 1, 0)).toCompletableFuture()));
        Counted reserved = call(reserving::join);
        Optional<Counted> request = counting.map(pending -> call(pending::join));
        Decision refused = Decision.mostRestrictive(reserved.decision(),
                request.map(Counted::decision).orElse(reserved.decision()));
        if (!refused.allowed()) {
            // All or nothing: what the other limit granted is taken back (a failure to do so keeps it: fewer pass).
            if (reserved.decision().allowed()) {
                reserved.giveBack();
            }
            request.filter(counted -> counted.decision().allowed()).ifPresent(Counted::giveBack);
            throw rejected(entry, key, refused, now, refused.storeUnavailable() ? null : "Limit '" + entry.id()
                    + "' has no room now for this reservation of " + cost + " " + units.unit() + "; the next is in "
                    + millisCeil(refused.retryAfterNanos()) + " ms. Nothing was counted.");
        }
        long expiresAt = Durations.saturatedAdd(now, reservationLifetimeNanos);
        String token = tokens.sign(entry.id(), Tokens.keyOf(key), unitKey, cost, reserved.reservation(),
                expiresAt);
        JsonObject answer = counts(answer(entry, key).put("granted", true).put("reservation", token)
                .put("estimate", cost).put("unit", units.unit()).put("expiresAt", epochMillisCeil(expiresAt))
                .put("expiresAtTime", rfc3339(expiresAt)), reserved.decision(), reserved.decision().remaining());
        request.ifPresent(counted -> {
            if (!counted.decision().storeUnavailable()) {
                answer.put("requestsRemaining", counted.decision().remaining());
            }
        });
        return Response.ok(answer.put("delayMs", 0).put("sendAt", epochMillisCeil(now))
                .put("sendAtTime", rfc3339(now)).toString()).build();
    }

    @PUT
    @Path("{id}/" + RESERVATIONS)
    public String settle(@PathParam("id") String id, @HeaderParam(RESERVATION_HEADER) @Nullable String reservation,
                         @QueryParam("cost") @Nullable String cost) {
        return settle(id, null, reservation, cost);
    }

    /**
     * Settles a reservation by its token, sent in the header {@value #RESERVATION_HEADER} (never in the path, which
     * access logs keep), at its actual {@code cost}: an excess over the estimate charged (a debt), a difference given
     * back. Idempotent: a settle of a reservation settled already answers 200 with {@code alreadySettled} and changes
     * nothing; a difference is given back at most once, however settles are retried and through whichever instances
     * ({@code docs/design/costs.md}). Past the token's lifetime ({@code expired}) only an excess is charged. 400 naming
     * the header for none, for a token this service did not sign (malformed, altered, signed with another key, a
     * permit's) or one of another id or key, naming {@code cost} for one above the id's {@code maxActual}; 503 when the
     * store fails: an excess is then not charged and a retry charges it, a difference may have been given back and a
     * retry gives nothing back.
     */
    @PUT
    @Path("{id}/{key}/" + RESERVATIONS)
    public String settle(@PathParam("id") String id, @PathParam("key") @Nullable String key,
                         @HeaderParam(RESERVATION_HEADER) @Nullable String reservation,
                         @QueryParam("cost") @Nullable String cost) {
        LimitsFile.Entry entry = entry(id, key);
        Policy units = metered(entry);
        Tokens.Reservation held = tokens.verifyReservation(reservation).orElseThrow(() -> Problems.invalid(
                RESERVATION_HEADER, reservation == null ? "expected the token of the reservation, as its grant gave it"
                        : "not a reservation token of this service: malformed, altered, signed with another key"
                        + " (give every instance the same permitSigningKey), or a permit's"));
        requireThisPath(RESERVATION_HEADER, "a reservation", held.id(), held.key(), entry, key);
        long actual = Parameters.actualCost(cost, entry, units);
        JsonObject answer = answer(entry, key).put("settled", true).put("estimate", held.estimate())
                .put("cost", actual).put("unit", units.unit());
        return settlements.settle(entry, held, units, actual, answer);
    }

    /**
     * The id's limits; 404 for an unknown id, 400 naming {@code key} for a key where there are none, or none where
     * there must be.
     */
    private LimitsFile.Entry entry(String id, @Nullable String key) {
        LimitsFile.Entry entry = limits.find(id).orElseThrow(() -> Problems.unknownLimit(id));
        if (entry.perKey() && key == null) {
            throw Problems.invalid("key", "limit '" + id + "' counts per key; expected a key");
        }
        if (!entry.perKey() && key != null) {
            throw Problems.invalid("key", "limit '" + id + "' has one counter and no keys; expected none");
        }
        return entry;
    }

    private static String keyOf(@Nullable String key) {
        return key == null ? "" : key;
    }

    private static String readOpenApi() {
        try (@Nullable InputStream in = LimitsResource.class.getResourceAsStream(OPENAPI)) {
            if (in == null) {
                throw new IllegalStateException("the jar lacks dev/sluice/service/" + OPENAPI);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
