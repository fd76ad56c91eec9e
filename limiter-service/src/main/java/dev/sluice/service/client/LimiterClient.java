package dev.sluice.service.client;

import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.client.Invocation;
import jakarta.ws.rs.client.WebTarget;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A client of the limiter service ({@code dev.sluice.service.LimiterService}) on the JAX-RS client API: give it the
 * target of the application's base path, where the service's {@code limits/} endpoints are.
 *
 * <pre>{@code
 * LimiterClient limiter = LimiterClient.of(ClientBuilder.newClient().target("http://limiter:8080/api"));
 * LimiterClient.Slot slot = limiter.acquire("github", "account-42", 1, Duration.ofSeconds(30));
 * if (slot.granted()) {
 *     Thread.sleep(slot.delay().toMillis());   // then call the remote API
 * }
 * try (LimiterClient.Permit permit = limiter.acquirePermit("exports", "account-42", Duration.ofSeconds(30))) {
 *     if (permit.granted()) {
 *         runTheExport();                       // close() releases the permit; a crash lets it end with its lease
 *     }
 * }
 * LimiterClient.Reservation tokens = limiter.reserve("llm", "account-42", maxTokens);
 * if (tokens.granted()) {
 *     limiter.settle("llm", "account-42", tokens.token(), callTheModel().tokensUsed());
 * }
 * }</pre>
 *
 * <p>Ids and keys go into the path, percent-encoded; they cannot hold a {@code /}, which servlet containers refuse
 * even encoded ({@link IllegalArgumentException}). Permit and reservation tokens go into the headers
 * {@code Sluice-Permit} and {@code Sluice-Reservation}, never the path, which access logs keep; every request carries
 * {@code Sluice-Client: sluice-java}, without which the service refuses a {@code POST} as cross-site. Error answers
 * throw {@link LimiterServiceException}; an acquire that finds no slot within its wait is not an error, but a
 * {@link Slot} not granted.
 *
 * <p>Every result says whether the limiter was unavailable: the service's store failed and the failure policy the
 * application set answered in its place (granting under {@code allow}, refusing under {@code reject}). Such an answer
 * counted nothing and comes from no counter, so its {@code remaining} is empty.
 *
 * <p>Needs a JAX-RS client (with Jersey: {@code jersey-client}, {@code jersey-hk2} and {@code jakarta.activation-api};
 * {@code docs/limiter-service.md}). Thread-safe as the {@link WebTarget} is (Jersey's are).
 */
public final class LimiterClient {

    /** The header that says a request comes from a client, not a page of another site (any value: the service). */
    private static final String CLIENT_HEADER = "Sluice-Client";
    private static final String CLIENT_NAME = "sluice-java";
    private static final String PERMIT_HEADER = "Sluice-Permit";
    private static final String RESERVATION_HEADER = "Sluice-Reservation";

    private final WebTarget limits;
    private final @Nullable String bearerToken;

    private LimiterClient(WebTarget limits, @Nullable String bearerToken) {
        this.limits = limits;
        this.bearerToken = bearerToken;
    }

    /** A client of the service under {@code base}, the application's base path (the service is at base/limits). */
    public static LimiterClient of(WebTarget base) {
        return new LimiterClient(base.path("limits"), null);
    }

    /**
     * This client, sending {@code token} as its bearer credential: the service's client token (its rate endpoints),
     * or its operations token (the operations, and the rate endpoints too).
     */
    public LimiterClient withBearerToken(String token) {
        return new LimiterClient(limits, Objects.requireNonNull(token, "token"));
    }

    /**
     * When a request of {@code cost} permits fits (for an increment: the next one-permit request); a delay counts
     * nothing.
     *
     * @param limit the capacity of the deciding limit
     * @param remaining the permits available now; empty when the limiter was unavailable
     * @param delay how long until the request fits; zero when it fits now
     * @param nextAt the instant it fits, on the service's clock
     * @param limiterUnavailable true when no counter answered: the service's store failed, and its failure policy
     *     ({@code allow}) says the request fits now without knowing how many permits remain
     */
    public record Delay(String id, @Nullable String key, long limit, OptionalLong remaining, Duration delay,
                        Instant nextAt, boolean limiterUnavailable) {
    }

    /**
     * The answer to an acquire: when {@code granted}, the slot was taken and counted; wait {@code delay} (until
     * {@code at}) and send. When not, nothing was counted, and {@code delay} and {@code at} say when the same request
     * would be granted (zero and the current instant when it never can be).
     *
     * <p>When {@code limiterUnavailable}, no counter decided: the service's store failed and its failure policy did.
     * Granted so, the request was let through uncounted (policy {@code allow}): it is limited by nothing until the
     * store answers again, and {@code remaining} is empty. Refused so (policy {@code reject}, in a batch), the store,
     * not a limit, refused it.
     *
     * @param remaining the permits left after this acquire; empty when the limiter was unavailable
     */
    public record Slot(String id, @Nullable String key, boolean granted, long limit, OptionalLong remaining,
                       Duration delay, Instant at, boolean limiterUnavailable) {
    }

    /** One request of a batch acquire; {@code key} null for an id without keys. */
    public record SlotRequest(String id, @Nullable String key, long cost) {
    }

    /**
     * A counter's state, from the operations endpoint: always a counter's, since the service answers 503
     * ({@link LimiterServiceException}) rather than show a failure policy's numbers as a counter's.
     */
    public record KeyState(String id, @Nullable String key, long limit, long remaining, long used,
                           Duration nextPermit, Duration resetAfter) {
    }

    /** {@code GET limits/{id}[/{key}]/delay?cost=}. */
    public Delay delay(String id, @Nullable String key, long cost) {
        Map<String, Object> answer = ok(request(path(id, key, "delay").queryParam("cost", cost)).get());
        return delay(answer);
    }

    /**
     * {@code POST limits/{id}[/{key}]/increment}: counts a request of {@code cost} made at {@code at} (null: now),
     * whether or not it fitted; answers when the next one-permit request fits.
     */
    public Delay increment(String id, @Nullable String key, long cost, @Nullable Instant at) {
        WebTarget target = path(id, key, "increment").queryParam("cost", cost);
        if (at != null) {
            target = target.queryParam("at", at.toString());
        }
        return delay(ok(request(target).post(Entity.text(""))));
    }

    /** {@code POST limits/{id}[/{key}]/acquire}: the next free slot within {@code maxWait}, counted atomically. */
    public Slot acquire(String id, @Nullable String key, long cost, Duration maxWait) {
        WebTarget target = path(id, key, "acquire").queryParam("cost", cost)
                .queryParam("maxWaitMs", maxWait.toMillis());
        try (Response response = request(target).post(Entity.text(""))) {
            String body = response.readEntity(String.class);
            if (response.getStatus() == 429) {
                return slot(JsonMap.parse(body));
            }
            return slot(checked(response.getStatus(), body));
        }
    }

    /** {@code POST limits/acquire}: several acquires, each decided on its own, in one request. */
    public List<Slot> acquireAll(List<SlotRequest> requests, Duration maxWait) {
        Map<String, Object> answer = ok(request(limits.path("acquire"))
                .post(Entity.entity(JsonMap.batch(requests, maxWait.toMillis()), MediaType.APPLICATION_JSON)));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> results = (List<Map<String, Object>>) answer.get("results");
        if (results == null) {
            throw new IllegalStateException("the limiter service's batch answer has no \"results\": " + answer);
        }
        return results.stream().map(LimiterClient::slot).toList();
    }

    /**
     * A concurrency permit from {@link #acquirePermit}: when {@code granted()}, held until {@link #close()} releases
     * it or its lease ends ({@link #leaseEndsAt()}, on the service's clock, whichever comes first); when not, every
     * permit was held and nothing was taken. Closing releases at most once (later closes, and closing a refusal, do
     * nothing); a failed release throws {@link LimiterServiceException} and the permit ends with its lease.
     * Thread-safe.
     */
    public static final class Permit implements AutoCloseable {
        private final LimiterClient client;
        private final String id;
        private final @Nullable String key;
        private final boolean granted;
        private final String token;
        private final long limit;
        private final OptionalLong remaining;
        private final Instant leaseEndsAt;
        private final boolean limiterUnavailable;
        private final AtomicBoolean released = new AtomicBoolean();

        private Permit(LimiterClient client, Map<String, Object> answer, boolean granted) {
            this.client = client;
            this.id = text(answer, "id");
            this.key = optionalText(answer, "key");
            this.granted = granted;
            this.token = granted ? text(answer, "permit") : "";
            this.limit = number(answer, "limit");
            this.remaining = optionalNumber(answer, "remaining");
            this.leaseEndsAt = granted ? Instant.ofEpochMilli(number(answer, "leaseEndsAt")) : Instant.EPOCH;
            this.limiterUnavailable = LimiterClient.limiterUnavailable(answer);
        }

        public String id() {
            return id;
        }

        /** The key under the id; null for an id without keys. */
        public @Nullable String key() {
            return key;
        }

        /** Whether the permit was taken. */
        public boolean granted() {
            return granted;
        }

        /** The signed token that releases the permit through any instance of the service; empty when refused. */
        public String token() {
            return token;
        }

        /** The permits of the limit: at most so many held at once. */
        public long limit() {
            return limit;
        }

        /** The permits left after this one; empty when the limiter was unavailable. */
        public OptionalLong remaining() {
            return remaining;
        }

        /** When the lease ends and the permit returns unreleased (the epoch when refused). */
        public Instant leaseEndsAt() {
            return leaseEndsAt;
        }

        /** True when no counter answered: the store failed and its failure policy granted or refused. */
        public boolean limiterUnavailable() {
            return limiterUnavailable;
        }

        /** Releases the permit if granted and not released yet: {@link #releasePermit}. */
        @Override
        public void close() {
            if (granted && released.compareAndSet(false, true)) {
                client.releasePermit(id, key, token);
            }
        }

        @Override
        public String toString() {
            return "Permit[" + id + (key == null ? "" : "/" + key) + (granted ? " granted until " + leaseEndsAt
                    : " refused") + "]";
        }
    }

    /**
     * {@code POST limits/{id}[/{key}]/permits?leaseMs=}: takes a concurrency permit for {@code lease} (at most the
     * limit's maximum hold), or answers a {@link Permit} not granted when every permit is held.
     */
    public Permit acquirePermit(String id, @Nullable String key, Duration lease) {
        return acquirePermit(path(id, key, "permits").queryParam("leaseMs", lease.toMillis()));
    }

    /** As {@link #acquirePermit(String, String, Duration)}, for the limit's maximum hold. */
    public Permit acquirePermit(String id, @Nullable String key) {
        return acquirePermit(path(id, key, "permits"));
    }

    private Permit acquirePermit(WebTarget target) {
        try (Response response = request(target).post(Entity.text(""))) {
            String body = response.readEntity(String.class);
            if (response.getStatus() == 429) {
                return new Permit(this, JsonMap.parse(body), false);
            }
            return new Permit(this, checked(response.getStatus(), body), true);
        }
    }

    /**
     * {@code DELETE limits/{id}[/{key}]/permits} with the token in {@code Sluice-Permit}: releases the permit of
     * {@code token}; nothing when it was released already or its lease ended. A token this service did not sign throws
     * (400).
     */
    public void releasePermit(String id, @Nullable String key, String token) {
        try (Response response = request(path(id, key, "permits")).header(PERMIT_HEADER, token).delete()) {
            checked(response.getStatus(), response.readEntity(String.class));
        }
    }

    /**
     * A reservation from {@link #reserve}: when {@code granted()}, the estimate is counted (and the call, for an id
     * that limits requests too) until {@link #settle} says the actual cost; when not, a limit had no room (a debt not
     * yet paid back included), nothing was counted, and {@code retryAfter()} says when the same reservation would be
     * granted. A reservation never settled keeps its estimate. Immutable and thread-safe.
     *
     * @param token the signed token that settles it through any instance of the service; empty when refused
     * @param estimate the cost reserved
     * @param unit what the id's limits count beside requests, such as {@code tokens}
     * @param limit the capacity of the id's limits in the unit
     * @param remaining the units left; empty when the limiter was unavailable
     * @param retryAfter when refused, until the same reservation would be granted; zero when granted
     */
    public record Reservation(String id, @Nullable String key, boolean granted, String token, long estimate,
                              String unit, long limit, OptionalLong remaining, Duration retryAfter,
                              boolean limiterUnavailable) {
    }

    /**
     * What a settle did: the actual cost it said, and the debt it charged beyond the estimate ({@code max(0, cost -
     * estimate)}, not the amount over the limit); {@code alreadySettled} when an earlier settle of the reservation
     * counted and this one changed nothing.
     */
    public record Settled(String id, @Nullable String key, long estimate, long cost, long debt,
                          boolean alreadySettled, OptionalLong remaining) {
    }

    /**
     * {@code POST limits/{id}[/{key}]/reservations?estimate=}: reserves a call's {@code estimate} in the id's unit
     * (such as tokens), and counts the call for an id that limits requests too, now, all or nothing; a refusal is a
     * {@link Reservation} not granted.
     */
    public Reservation reserve(String id, @Nullable String key, long estimate) {
        WebTarget target = path(id, key, "reservations").queryParam("estimate", estimate);
        try (Response response = request(target).post(Entity.text(""))) {
            String body = response.readEntity(String.class);
            Map<String, Object> answer = response.getStatus() == 429 ? JsonMap.parse(body)
                    : checked(response.getStatus(), body);
            boolean granted = Boolean.TRUE.equals(answer.get("granted"));
            return new Reservation(text(answer, "id"), optionalText(answer, "key"), granted,
                    granted ? text(answer, "reservation") : "", granted ? number(answer, "estimate") : estimate,
                    granted ? text(answer, "unit") : "", number(answer, "limit"), optionalNumber(answer, "remaining"),
                    Duration.ofMillis(granted ? 0 : (long) answer.getOrDefault("retryAfterMs", 0L)),
                    limiterUnavailable(answer));
        }
    }

    /**
     * {@code PUT limits/{id}[/{key}]/reservations?cost=} with the token in {@code Sluice-Reservation}: settles the
     * reservation of {@code token} at the call's actual {@code cost}. Idempotent: a second settle changes nothing. A
     * token this service did not sign throws (400); a store that fails throws (503), and the reservation may be settled
     * again.
     */
    public Settled settle(String id, @Nullable String key, String token, long cost) {
        WebTarget target = path(id, key, "reservations").queryParam("cost", cost);
        Map<String, Object> answer = ok(request(target).header(RESERVATION_HEADER, token).put(Entity.text("")));
        return new Settled(text(answer, "id"), optionalText(answer, "key"), number(answer, "estimate"),
                number(answer, "cost"), answer.containsKey("debt") ? number(answer, "debt") : 0,
                Boolean.TRUE.equals(answer.get("alreadySettled")), optionalNumber(answer, "remaining"));
    }

    /** {@code GET limits/{id}[/{key}]/state} (operations). */
    public KeyState state(String id, @Nullable String key) {
        Map<String, Object> answer = ok(request(path(id, key, "state")).get());
        return new KeyState(text(answer, "id"), optionalText(answer, "key"), number(answer, "limit"),
                number(answer, "remaining"), number(answer, "used"),
                Duration.ofMillis(number(answer, "nextPermitMs")), Duration.ofMillis(number(answer, "resetMs")));
    }

    /** {@code POST limits/{id}[/{key}]/reset} (operations). */
    public void reset(String id, @Nullable String key) {
        try (Response response = request(path(id, key, "reset")).post(Entity.text(""))) {
            checked(response.getStatus(), response.readEntity(String.class));
        }
    }

    private WebTarget path(String id, @Nullable String key, String operation) {
        if (id.contains("/") || key != null && (key.contains("/") || key.isEmpty())) {
            throw new IllegalArgumentException("ids and keys must be non-empty and hold no '/': servlet containers"
                    + " refuse an encoded slash in a path");
        }
        WebTarget target = limits.path("{id}").resolveTemplate("id", id, true);
        if (key != null) {
            target = target.path("{key}").resolveTemplate("key", key, true);
        }
        return target.path(operation);
    }

    private Invocation.Builder request(WebTarget target) {
        Invocation.Builder request = target.request(MediaType.APPLICATION_JSON_TYPE, new MediaType("application",
                "problem+json")).header(CLIENT_HEADER, CLIENT_NAME);
        return bearerToken == null ? request : request.header(HttpHeaders.AUTHORIZATION, "Bearer " + bearerToken);
    }

    private static Map<String, Object> ok(Response response) {
        try (response) {
            return checked(response.getStatus(), response.readEntity(String.class));
        }
    }

    private static Map<String, Object> checked(int status, String body) {
        if (status / 100 == 2) {
            return body.isEmpty() ? Map.of() : JsonMap.parse(body);
        }
        String type = "about:blank";
        String detail = body;
        try {
            Map<String, Object> problem = JsonMap.parse(body);
            type = String.valueOf(problem.getOrDefault("type", type));
            detail = String.valueOf(problem.getOrDefault("detail", body));
        } catch (IllegalArgumentException notJson) {
            // The detail stays the body as it came.
        }
        throw new LimiterServiceException(status, type, detail);
    }

    private static Delay delay(Map<String, Object> answer) {
        return new Delay(text(answer, "id"), optionalText(answer, "key"), number(answer, "limit"),
                optionalNumber(answer, "remaining"), Duration.ofMillis(number(answer, "delayMs")),
                Instant.ofEpochMilli(number(answer, "nextAt")), limiterUnavailable(answer));
    }

    private static Slot slot(Map<String, Object> answer) {
        boolean granted = Boolean.TRUE.equals(answer.get("granted"));
        long wait = granted ? number(answer, "delayMs") : (long) answer.getOrDefault("retryAfterMs", 0L);
        long at = granted ? number(answer, "sendAt")
                : (long) answer.getOrDefault("nextAt", System.currentTimeMillis());
        return new Slot(text(answer, "id"), optionalText(answer, "key"), granted, number(answer, "limit"),
                optionalNumber(answer, "remaining"), Duration.ofMillis(wait), Instant.ofEpochMilli(at),
                limiterUnavailable(answer));
    }

    /** The service's {@code limiterUnavailable}, present (and true) only when no counter answered. */
    private static boolean limiterUnavailable(Map<String, Object> answer) {
        return Boolean.TRUE.equals(answer.get("limiterUnavailable"));
    }

    private static String text(Map<String, Object> answer, String name) {
        return String.valueOf(Objects.requireNonNull(answer.get(name), name));
    }

    private static @Nullable String optionalText(Map<String, Object> answer, String name) {
        Object value = answer.get(name);
        return value == null ? null : value.toString();
    }

    private static OptionalLong optionalNumber(Map<String, Object> answer, String name) {
        return answer.containsKey(name) ? OptionalLong.of(number(answer, name)) : OptionalLong.empty();
    }

    private static long number(Map<String, Object> answer, String name) {
        if (answer.get(name) instanceof Long value) {
            return value;
        }
        throw new IllegalArgumentException("the service's answer lacks the number '" + name + "'");
    }
}
