package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.http.StrictJson;
import dev.sluice.internal.json.JsonObject;
import dev.sluice.store.LocalCounterStore;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.glassfish.jersey.server.ResourceConfig;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes every numeric and token parameter of the service (issue 38, Measure) against a real server (Jetty 12,
 * Jersey, the local store): random, boundary and overlong values of {@code cost}, {@code at}, {@code maxWaitMs},
 * {@code leaseMs}, {@code estimate}, a settle's {@code cost}, the batch body's members, keys, and the permit and
 * reservation tokens (valid, spent, altered, cut, of another kind, id or key, made up, overlong, none), in a random
 * order of calls on ids of every kind. Two properties hold for every request:
 * <ul>
 *   <li>never a 5xx: a value the service cannot take is a 4xx;</li>
 *   <li>never a grant a limit should have refused: the clock stands still, so nothing the store counts leaves a window
 *   or refills during the run, and a model of what was counted (every increment, every grant for now, every
 *   reservation less what its settle gave back, every permit held and not released) bounds what may still be
 *   granted now, a delay's "now" included. The model errs only towards granting (an increment aged by {@code at} on
 *   an algorithm that refills counts nothing in it), so a grant beyond it is the service's fault.</li>
 * </ul>
 * {@value #DEFAULT_CASES} requests by default (one request a case); {@code ./reliability.sh} runs more. The run
 * depends only on its seed: a failure names the seed and the case, and {@code -Dsluice.fuzz.service.seed=S
 * -Dsluice.fuzz.service.cases=N} replays it.
 */
class ServiceFuzzTest {

    private static final int DEFAULT_CASES = 3_000;
    private static final long SEED = Long.getLong("sluice.fuzz.service.seed", 38L);
    private static final int CASES = Integer.getInteger("sluice.fuzz.service.cases", DEFAULT_CASES);
    private static final String LIMITS = """
            {"limits": {
              "log": {"algorithm": "sliding_window_log", "permits": 5, "period": "1m"},
              "bucket": {"algorithm": "token_bucket", "permits": 4, "period": "1s", "perKey": true},
              "gcra": {"algorithm": "gcra", "permits": 3, "period": "1m"},
              "slots": {"concurrency": 2, "maxHold": "1m"},
              "seats": {"concurrency": 1, "maxHold": "30s", "perKey": true},
              "llm": {"algorithm": "sliding_window_log", "perKey": true,
                      "limits": [{"permits": 4, "period": "1m"}, {"permits": 100, "period": "1m", "unit": "tokens"}]}
            }}""";
    private static final LimitsFile FILE = LimitsFile.parse("limits.json", LIMITS);
    private static final List<String> IDS = List.of("log", "bucket", "gcra", "slots", "seats", "llm", "nope");
    /** The ids each kind of call is for (those with keys more often: a fresh key has room for more grants). */
    private static final List<String> RATES = List.of("log", "bucket", "bucket", "bucket", "gcra");
    private static final List<String> CONCURRENCY = List.of("slots", "seats", "seats", "seats");
    private static final List<String> UNITS = List.of("llm");
    private static final int KEYS = 400;
    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final ObjectMapper JSON = new ObjectMapper(StrictJson.factory());

    private final ManualTimeSource time = new ManualTimeSource();
    private final long nowMillis = time.nanos() / NANOS_PER_MILLI;

    /** What the model knows was counted on one counter (an id and key); all of it stays, the clock standing still. */
    private static final class Counter {
        long used;
        long held;
    }

    /** A token the service gave: what it was for, and whether it was spent (released or settled). */
    private record Given(String id, @Nullable String key, boolean permit, long estimate) {
    }

    private final Map<String, Counter> counters = new HashMap<>();
    private final Map<String, Given> given = new LinkedHashMap<>();
    private final Map<String, Boolean> spent = new HashMap<>();
    private final Map<String, Integer> statuses = new TreeMap<>();
    private int grants;

    @Test
    void everyParameter_fuzzed_neverA5xxNorAGrantBeyondTheLimits() throws Exception {
        LocalCounterStore store = new LocalCounterStore(time, 100_000, Runnable::run);
        long start = System.nanoTime();
        try (TestServer server = TestServer.start(new ResourceConfig().register(LimiterService.builder().limits(FILE)
                .store(store).timeSource(time).permitSigningKey("permit-signing-key-of-the-fuzzer-0123456789")
                .build()))) {
            for (int index = 0; index < CASES; index++) {
                SplittableRandom random = new SplittableRandom(new Random(SEED * 1_000_003L + index).nextLong());
                Call call = call(random);
                HttpResponse<String> answer = server.request(call.method, call.path, call.body, call.headers);
                String where = "case " + index + " (seed " + SEED + "): " + call.method + " " + shown(call.path)
                        + (call.body.isEmpty() ? "" : " " + shown(call.body)) + " -> " + answer.statusCode() + " "
                        + shown(answer.body());
                statuses.merge(String.valueOf(answer.statusCode()), 1, Integer::sum);
                assertThat(answer.statusCode()).as(where).isBetween(200, 499);
                call.check.accept(answer, where);
            }
        } finally {
            store.close();
        }
        System.out.printf("ServiceFuzzTest: %,d requests (seed %d): %s, %,d grants checked against the limits,"
                + " %.1f s%n", CASES, SEED, statuses, grants,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) / 1000.0);
    }

    /** One request, and what must hold of its answer. */
    private record Call(String method, String path, String body, String[] headers, Check check) {
    }

    @FunctionalInterface
    private interface Check {
        void accept(HttpResponse<String> answer, String where) throws Exception;
    }

    private Call call(SplittableRandom random) {
        int kind = random.nextInt(9);
        // Mostly an id the call is for, so that most calls reach the limits; now and then any id.
        List<String> ids = random.nextInt(8) == 0 ? IDS : kind < 4 ? RATES : kind < 6 ? CONCURRENCY : UNITS;
        String id = ids.get(random.nextInt(ids.size()));
        @Nullable String key = key(random, id);
        String base = "limits/" + segment(id) + (key == null ? "" : "/" + segment(key));
        return switch (kind) {
            case 0 -> delay(random, id, key, base);
            case 1 -> increment(random, id, key, base);
            case 2 -> acquire(random, id, key, base);
            case 3 -> batch(random);
            case 4 -> takePermit(random, id, key, base);
            case 5 -> release(random, token(random, true), id, key);
            case 6 -> reserve(random, id, key, base);
            case 7 -> settle(random, token(random, false), id, key);
            default -> garbage(random, base);
        };
    }

    private Call delay(SplittableRandom random, String id, @Nullable String key, String base) {
        @Nullable String cost = maybe(random, number(random, id));
        return new Call("GET", base + "/delay" + query("cost", cost), "", new String[0], (answer, where) -> {
            if (answer.statusCode() == 200) {
                JsonNode delay = JSON.readTree(answer.body());
                long asked = cost == null ? 1 : Long.parseLong(cost);
                if (delay.path("delayMs").asLong() == 0) {
                    expectRoom(id, key, asked, where + ": a delay of 0 says it fits now");
                }
            }
        });
    }

    private Call increment(SplittableRandom random, String id, @Nullable String key, String base) {
        @Nullable String cost = maybe(random, number(random, id));
        @Nullable String at = maybe(random, at(random));
        return new Call("POST", base + "/increment" + query("cost", cost) + query("at", at, cost == null), "",
                new String[0], (answer, where) -> {
                    if (answer.statusCode() == 200) {
                        long counted = cost == null ? 1 : Long.parseLong(cost);
                        boolean aged = at != null && age(at) > 0;
                        // Aged, an algorithm that refills may count less of it now: the model counts none.
                        counter(id, key).used += aged && !id.equals("log") ? 0 : counted;
                    }
                });
    }

    private Call acquire(SplittableRandom random, String id, @Nullable String key, String base) {
        @Nullable String cost = maybe(random, number(random, id));
        @Nullable String wait = maybe(random, millis(random, 60_000));
        return new Call("POST", base + "/acquire" + query("cost", cost) + query("maxWaitMs", wait, cost == null), "",
                new String[0], (answer, where) -> {
                    if (answer.statusCode() == 200) {
                        granted(id, key, cost == null ? 1 : Long.parseLong(cost), wait, JSON.readTree(answer.body()),
                                where);
                    }
                });
    }

    /** A granted slot: for now, it must fit what the model counted; ahead, within the wait asked for. */
    private void granted(String id, @Nullable String key, long cost, @Nullable String wait, JsonNode slot,
                         String where) {
        grants++;
        long delay = slot.path("delayMs").asLong();
        if (delay == 0) {
            expectRoom(id, key, cost, where);
            counter(id, key).used += cost;
        } else {
            assertThat(delay).as(where + ": a slot within the wait").isLessThanOrEqualTo(wait == null ? 60_000
                    : Long.parseLong(wait));
        }
    }

    private Call batch(SplittableRandom random) {
        int count = random.nextInt(10) == 0 ? 101 : 1 + random.nextInt(3);
        List<String[]> items = new ArrayList<>();
        StringBuilder body = new StringBuilder("{");
        @Nullable String wait = maybe(random, millis(random, 60_000));
        if (wait != null) {
            body.append("\"maxWaitMs\": ").append(jsonNumber(random, wait)).append(", ");
        }
        body.append("\"requests\": [");
        for (int i = 0; i < count; i++) {
            List<String> ids = random.nextInt(8) == 0 ? IDS : RATES;
            String id = ids.get(random.nextInt(ids.size()));
            @Nullable String key = key(random, id);
            @Nullable String cost = maybe(random, number(random, id));
            items.add(new String[] {id, key, cost});
            body.append(i == 0 ? "" : ", ").append("{\"id\": ").append(JsonObject.quoted(id));
            if (key != null) {
                body.append(", \"key\": ").append(JsonObject.quoted(key));
            }
            if (cost != null) {
                body.append(", \"cost\": ").append(jsonNumber(random, cost));
            }
            body.append('}');
        }
        body.append("]}");
        String text = random.nextInt(20) == 0 ? body.substring(0, random.nextInt(body.length())) : body.toString();
        return new Call("POST", "limits/acquire", text, new String[] {"Content-Type", "application/json"},
                (answer, where) -> {
                    if (answer.statusCode() != 200) {
                        return;
                    }
                    JsonNode results = JSON.readTree(answer.body()).path("results");
                    assertThat(results.size()).as(where).isEqualTo(items.size());
                    // Items are decided on their own, in any order: the immediate grants on a counter must fit
                    // together, whichever came first.
                    Map<String, Long> now = new LinkedHashMap<>();
                    for (int i = 0; i < items.size(); i++) {
                        String[] item = items.get(i);
                        JsonNode result = results.get(i);
                        if (result.path("granted").asBoolean()) {
                            grants++;
                            long cost = item[2] == null ? 1 : Long.parseLong(item[2]);
                            if (result.path("delayMs").asLong() == 0) {
                                now.merge(name(item[0], item[1]), cost, Long::sum);
                            }
                        }
                    }
                    for (int i = 0; i < items.size(); i++) {
                        String[] item = items.get(i);
                        Long cost = now.remove(name(item[0], item[1]));
                        if (cost != null) {
                            expectRoom(item[0], item[1], cost, where);
                            counter(item[0], item[1]).used += cost;
                        }
                    }
                });
    }

    private Call takePermit(SplittableRandom random, String id, @Nullable String key, String base) {
        @Nullable String lease = maybe(random, millis(random, 60_000));
        return new Call("POST", base + "/permits" + query("leaseMs", lease), "", new String[0], (answer, where) -> {
            if (answer.statusCode() == 200) {
                grants++;
                long permits = FILE.find(id).orElseThrow().concurrency().orElseThrow().permits();
                Counter counter = counter(id, key);
                assertThat(counter.held).as(where + ": a permit while " + counter.held + " of " + permits
                        + " are held").isLessThan(permits);
                counter.held++;
                given.put(JSON.readTree(answer.body()).path("permit").asText(), new Given(id, key, true, 0));
            }
        });
    }

    /** The id and key of a call with a token: mostly those it was given for, when the service gave it; else any. */
    private @Nullable Given owner(SplittableRandom random, @Nullable String token) {
        @Nullable Given owner = token == null ? null : given.get(token);
        return owner != null && random.nextInt(5) != 0 ? owner : null;
    }

    private Call release(SplittableRandom random, @Nullable String token, String anyId, @Nullable String anyKey) {
        @Nullable Given owner = owner(random, token);
        String id = owner == null ? anyId : owner.id();
        @Nullable String key = owner == null ? anyKey : owner.key();
        String base = "limits/" + segment(id) + (key == null ? "" : "/" + segment(key));
        boolean inPath = token != null && random.nextInt(10) == 0;
        String path = base + "/permits" + (inPath ? "/" + segment(token) : "");
        String[] headers = token == null || inPath ? new String[0] : new String[] {"Sluice-Permit", token};
        return new Call("DELETE", path, "", headers, (answer, where) -> {
            @Nullable Given permit = token == null || inPath ? null : given.get(token);
            boolean releases = permit != null && permit.permit() && permit.id().equals(id)
                    && Objects.equals(permit.key(), key);
            if (answer.statusCode() == 204) {
                assertThat(releases).as(where + ": released by a token of this permit only").isTrue();
                if (spent.put(token, true) == null) {
                    counter(id, key).held--;
                }
            } else {
                assertThat(releases && FILE.find(id).orElseThrow().concurrency().isPresent()).as(where).isFalse();
            }
        });
    }

    private Call reserve(SplittableRandom random, String id, @Nullable String key, String base) {
        @Nullable String estimate = maybe(random, number(random, id));
        return new Call("POST", base + "/reservations" + query("estimate", estimate), "", new String[0],
                (answer, where) -> {
                    if (answer.statusCode() != 200) {
                        return;
                    }
                    grants++;
                    long cost = Long.parseLong(Objects.requireNonNull(estimate, where));
                    expectRoom(id, key, 1, where + ": the reservation's request");
                    expectRoom(units(id), key, cost, where + ": the reservation's estimate");
                    counter(id, key).used++;
                    counter(units(id), key).used += cost;
                    given.put(JSON.readTree(answer.body()).path("reservation").asText(),
                            new Given(id, key, false, cost));
                });
    }

    private Call settle(SplittableRandom random, @Nullable String token, String anyId, @Nullable String anyKey) {
        @Nullable Given owner = owner(random, token);
        String id = owner == null ? anyId : owner.id();
        @Nullable String key = owner == null ? anyKey : owner.key();
        String base = "limits/" + segment(id) + (key == null ? "" : "/" + segment(key));
        @Nullable String cost = maybe(random, number(random, units(id)));
        String[] headers = token == null ? new String[0] : new String[] {"Sluice-Reservation", token};
        return new Call("PUT", base + "/reservations" + query("cost", cost), "", headers, (answer, where) -> {
            if (answer.statusCode() != 200) {
                return;
            }
            @Nullable Given reservation = token == null ? null : given.get(token);
            assertThat(reservation).as(where + ": settled by a token of this reservation only")
                    .matches(r -> r != null && !r.permit() && r.id().equals(id)
                            && Objects.equals(r.key(), key));
            boolean already = JSON.readTree(answer.body()).path("alreadySettled").asBoolean();
            boolean first = spent.put(token, true) == null;
            assertThat(already).as(where + ": settled once, and only once").isEqualTo(!first);
            if (first) {
                counter(units(id), key).used += Long.parseLong(Objects.requireNonNull(cost, where))
                        - Objects.requireNonNull(reservation, where).estimate();
            }
        });
    }

    /** Paths and methods the service does not have, with fuzzed segments: a 4xx each. */
    private Call garbage(SplittableRandom random, String base) {
        String[] tails = {"/state", "/reset", "/delay/x", "", "/permits/x/y", "/reservations/", "/%2e%2e/acquire"};
        String[] methods = {"GET", "POST", "PUT", "DELETE", "PATCH"};
        return new Call(methods[random.nextInt(methods.length)], base + tails[random.nextInt(tails.length)], "",
                new String[0], (answer, where) -> { });
    }

    /** Asserts that {@code cost} more fits the limits of {@code id} and {@code key} by what the model counted. */
    private void expectRoom(String id, @Nullable String key, long cost, String where) {
        long capacity = policy(id).capacity();
        Counter counter = counter(id, key);
        assertThat(counter.used + cost).as(where + ": granted " + cost + " where " + counter.used + " of "
                + capacity + " were counted").isLessThanOrEqualTo(capacity);
    }

    private static Policy policy(String id) {
        if (id.endsWith("#units")) {
            return FILE.find(id.substring(0, id.length() - 6)).orElseThrow().metered().orElseThrow();
        }
        return FILE.find(id).orElseThrow().policy().orElseThrow();
    }

    private static String units(String id) {
        return id + "#units";
    }

    private Counter counter(String id, @Nullable String key) {
        return counters.computeIfAbsent(name(id, key), name -> new Counter());
    }

    private static String name(String id, @Nullable String key) {
        return id + "|" + (key == null ? "" : key);
    }

    /** A key for an id (none for an unkeyed one), now and then the wrong way round or made up. */
    private static @Nullable String key(SplittableRandom random, String id) {
        boolean perKey = FILE.find(id).map(LimitsFile.Entry::perKey).orElse(random.nextBoolean());
        if (random.nextInt(15) == 0) {
            perKey = !perKey;
        }
        if (!perKey) {
            return null;
        }
        return switch (random.nextInt(15)) {
            case 0 -> "ü-" + random.nextInt(5);
            case 1 -> "k".repeat(1 + random.nextInt(3000));
            case 2 -> " spaced key ";
            default -> "k" + random.nextInt(KEYS);
        };
    }

    /** A number for an id's cost or estimate: near its capacity, at a long's edges, past them, or not one at all. */
    private static String number(SplittableRandom random, String id) {
        long capacity = FILE.find(id.replace("#units", "")).flatMap(entry -> id.endsWith("#units")
                ? entry.metered() : entry.policy().or(entry::metered)).map(Policy::capacity).orElse(5L);
        return switch (random.nextInt(8)) {
            case 0 -> String.valueOf(random.nextLong(-1, capacity + 2));
            case 1 -> String.valueOf(random.nextLong(0, 4));
            case 2, 3 -> edge(random);
            default -> String.valueOf(random.nextLong(1, Math.min(capacity, 3) + 1));
        };
    }

    /** Milliseconds around {@code most}, or an edge. */
    private static String millis(SplittableRandom random, long most) {
        return switch (random.nextInt(3)) {
            case 0 -> String.valueOf(random.nextLong(-1, most + 2));
            case 1 -> String.valueOf(most + random.nextLong(-2, 3));
            default -> edge(random);
        };
    }

    private static String edge(SplittableRandom random) {
        String[] edges = {"0", "-0", "00", "007", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
            "9999999999999999999", "18446744073709551616", "4611686018427387904", "4611686018427387903",
            "1".repeat(40), "9".repeat(5000), "", " ", "1.5", "1e3", "0x10", "+1", "1 ", "１", "٣", "NaN", "null",
            "true", "-", "1,000", "1_000", "%", "\u0000", "\t1"};
        return edges[random.nextInt(edges.length)];
    }

    /** An {@code at}: around now, old, ahead, in both forms, at the edges of an instant, or not one. */
    private String at(SplittableRandom random) {
        return switch (random.nextInt(8)) {
            case 0, 6, 7 -> String.valueOf(nowMillis - random.nextLong(0, 70_000));
            case 1 -> String.valueOf(nowMillis + random.nextLong(0, 3_000));
            case 2 -> Instant.ofEpochMilli(nowMillis - random.nextLong(-2_000, 70_000)).toString();
            case 3 -> new String[] {"0001-01-01T00:00:00Z", "1700-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
                "+999999999-12-31T23:59:59.999999999Z", "-999999999-01-01T00:00:00Z", "2026-01-01T00:00:00+18:00",
                "2026-01-01T00:00:00-18:00", "2026-01-01T00:00:00", "2026-01-01", "2026-13-01T00:00:00Z",
                "2025-12-31T23:59:30Z", "2025-12-31T23:59:30.123456789+00:00"}[random.nextInt(12)];
            default -> edge(random);
        };
    }

    /** How long before now an accepted {@code at} was; 0 when ahead. */
    private long age(String at) {
        long atMillis = at.chars().allMatch(Character::isDigit) ? Long.parseLong(at)
                : OffsetDateTime.parse(at).toInstant().toEpochMilli();
        return Math.max(0, nowMillis - atMillis);
    }

    /** A token for a release or a settle: one the service gave (any kind), altered, cut, made up, or none. */
    private @Nullable String token(SplittableRandom random, boolean permit) {
        List<String> tokens = given.entrySet().stream().filter(e -> e.getValue().permit() == permit
                || random.nextInt(4) == 0).map(Map.Entry::getKey).toList();
        String real = tokens.isEmpty() ? "AQAEbG9n.c2ln" : tokens.get(random.nextInt(tokens.size()));
        return switch (random.nextInt(10)) {
            case 0 -> null;
            case 1 -> flip(random, real);
            case 2 -> real.substring(0, random.nextInt(real.length()));
            case 3 -> real + real;
            case 4 -> "A".repeat(1 + random.nextInt(6000)) + "." + "B".repeat(43);
            case 5 -> new String[] {"", ".", "a.b", "..", "=.=", "%00", "null", "AQ.AQ"}[random.nextInt(8)];
            default -> real;
        };
    }

    private static String flip(SplittableRandom random, String token) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        int at = random.nextInt(token.length());
        return token.substring(0, at) + alphabet.charAt(random.nextInt(alphabet.length())) + token.substring(at + 1);
    }

    private static @Nullable String maybe(SplittableRandom random, String value) {
        return random.nextInt(6) == 0 ? null : value;
    }

    private static String query(String name, @Nullable String value) {
        return query(name, value, true);
    }

    private static String query(String name, @Nullable String value, boolean first) {
        return value == null ? "" : (first ? "?" : "&") + name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static String segment(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** A number as the body carries it: a JSON number when it is one, else a string or a bare word. */
    private static String jsonNumber(SplittableRandom random, String value) {
        boolean leadingZero = value.startsWith("-0") || value.startsWith("0") && value.length() > 1;
        if (value.matches("-?[0-9]{1,6000}") && !leadingZero) {
            return random.nextInt(10) == 0 ? JsonObject.quoted(value) : value;
        }
        return random.nextBoolean() ? JsonObject.quoted(value) : "[" + JsonObject.quoted(value) + "]";
    }

    private static String shown(String text) {
        return text.length() > 300 ? text.substring(0, 300) + "..." : text;
    }
}
