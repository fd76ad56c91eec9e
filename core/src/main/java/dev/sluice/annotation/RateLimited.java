package dev.sluice.annotation;

import dev.sluice.algorithm.Algorithm;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Rate-limits a JAX-RS resource method, or every method of a resource class: give the limit here
 * ({@link #permits()} per {@link #period()}) or name a rule of the rules file ({@link #rule()}). Repeat the annotation
 * with one id for several limits that must all pass; different ids are separate rules. A method-level annotation
 * replaces the class-level ones; {@link RateLimitExempt} removes them; a rules-file rule with the same id replaces the
 * limits given here.
 *
 * <pre>{@code
 * @RateLimited(id = "search", permits = 10, period = "1s", key = "principal")
 * @RateLimited(id = "search", permits = 1000, period = "1d", key = "principal")
 * public List<Hit> search(@QueryParam("q") String q) { ... }
 * }</pre>
 *
 * <p>A limit may count a unit other than requests ({@link #unit()}, such as tokens): each request reserves its
 * {@link #estimate()} when it starts and settles its {@link #actualCost()} when it ends (see
 * {@code docs/design/costs.md}):
 *
 * <pre>{@code
 * @RateLimited(id = "llm", permits = 20, period = "1m", key = "header:X-Api-Key")
 * @RateLimited(id = "llm", permits = 10000, period = "1m", unit = "tokens", key = "header:X-Api-Key",
 *              estimate = "header:X-Max-Tokens", actualCost = "header:X-Tokens-Used")
 * public Completion complete(Prompt prompt) { ... }
 * }</pre>
 *
 * <p>Read by {@code dev.sluice.rules.AnnotationRules}, which reports mistakes naming the class and method. See
 * {@code docs/design/rules.md}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Repeatable(RateLimited.List.class)
public @interface RateLimited {

    /** The rule id; by default the class name (class level) or class name and {@code #method} (method level). */
    String id() default "";

    /**
     * Permits per {@link #period()}, at least 1; 0 only together with {@link #rule()} or for a {@link #concurrency()}
     * limit alone.
     */
    long permits() default 0;

    /** The period, such as {@code "1s"}, {@code "10m"}, {@code "1h"}, {@code "1d"} or {@code "PT1M"}. */
    String period() default "";

    /** The burst capacity, for algorithms that have one; 0 for the default ({@link #permits()}). */
    long capacity() default 0;

    /** The id of a rules file rule that defines the limits, instead of {@link #permits()} and {@link #period()}. */
    String rule() default "";

    Algorithm algorithm() default Algorithm.TOKEN_BUCKET;

    /**
     * What to count by: {@code ip}, {@code principal}, {@code constant}, {@code header:NAME}, {@code cookie:NAME},
     * {@code query:NAME} or {@code path:NAME}; several entries make a composite key.
     */
    String[] key() default "ip";

    /**
     * What a request lacking the {@link #key()} attribute gets: by default it is counted under a fallback key (the
     * client's address unless {@link #fallbackKey()} names one); {@link OnMissingKey#SKIP} leaves it uncounted.
     */
    OnMissingKey onMissingKey() default OnMissingKey.FALLBACK;

    /**
     * With {@link OnMissingKey#FALLBACK}, the one key all requests lacking theirs share; empty (the default) for each
     * client's address.
     */
    String fallbackKey() default "";

    /** Permits each request costs. */
    long cost() default 1;

    /** Count and report only, never reject ({@code shadow} mode). */
    boolean shadow() default false;

    /**
     * Let stores that lease (the Hazelcast store with leasing on) grant this rule's hot keys from slices taken from
     * each key's owner ({@code docs/design/leasing.md}). Not with {@link Algorithm#SLIDING_WINDOW_LOG} or
     * {@link Algorithm#LEAKY_BUCKET}, which cannot lease, nor with {@link #rule()} (the rules file says).
     */
    boolean lease() default false;

    /**
     * How this rule's counters are kept in step across nodes; {@link Sync#EXACT} by default. {@link Sync#SYNCHRONISED}
     * only without {@link #lease()}, nor with {@link #rule()} (the rules file says).
     */
    Sync sync() default Sync.EXACT;

    /**
     * With {@link Sync#SYNCHRONISED}, the most permits of a key one node admits before the key's owner has counted them
     * (0: every decision on the owner); -1 (the default) for the store's. See {@code docs/design/synchronised.md}.
     */
    long syncBudget() default -1;

    /**
     * At most this many of the key's requests in flight at once, across every node sharing the store; 0 (the
     * default) for none. Alone, or beside {@link #permits()} per {@link #period()} (all or nothing: a request one of
     * them rejects takes nothing from the other). One per id. See {@code docs/design/concurrency.md}.
     */
    long concurrency() default 0;

    /**
     * With {@link #concurrency()}, the longest a request holds its permit before it returns on its own, such as
     * {@code "30s"}; empty (the default) for 5 minutes.
     */
    String maxHold() default "";

    /**
     * With {@link #concurrency()}, the longest a request over the limit waits for a permit, first come first served,
     * before it is rejected, such as {@code "2s"}, at most 10 minutes; empty (the default) to reject it at once. (The
     * rules file's {@code "wait"}; {@code wait} is taken by {@link Object#wait()}.) See
     * {@code docs/design/concurrency.md}.
     */
    String permitWait() default "";

    /**
     * What this limit counts: empty (the default) for requests, or a unit such as {@code tokens} or {@code bytes},
     * which each request reserves as its {@link #estimate()} and settles at its {@link #actualCost()}. Annotations
     * sharing an id count requests and at most one other unit. The leaky bucket counts only requests.
     */
    String unit() default "";

    /**
     * With a {@link #unit()}, where a request's estimate in it comes from when it starts: {@code header:NAME},
     * {@code query:NAME}, {@code content-length}, or {@code fixed:N}. Given once per id (annotations that give it
     * must agree).
     */
    String estimate() default "";

    /** With an {@link #estimate()}, the largest taken; 0 (the default): the smallest capacity of the unit's limits. */
    long maxEstimate() default 0;

    /**
     * With an {@link #estimate()}, what a request whose estimate is missing or invalid reserves; 0 (the default) to
     * refuse such a request with 400.
     */
    long defaultEstimate() default 0;

    /**
     * With a {@link #unit()}, where a request's actual cost comes from when it ends: {@code header:NAME} (a response
     * header the resource sets, stripped unless {@link #keepActualHeader()}) or {@code attribute:NAME} (a request
     * property); empty (the default) when only the API settles. A request that says none keeps its estimate.
     */
    String actualCost() default "";

    /** With {@code actualCost = "header:..."}, leave that header on the response for the client to see. */
    boolean keepActualHeader() default false;

    /** Holds repeated {@link RateLimited} annotations. */
    @Documented
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.TYPE, ElementType.METHOD})
    @interface List {
        RateLimited[] value();
    }
}
