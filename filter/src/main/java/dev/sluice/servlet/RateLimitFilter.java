package dev.sluice.servlet;

import dev.sluice.engine.Evaluation;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.engine.RuleOverrides;
import dev.sluice.http.LimiterStatus;
import dev.sluice.http.ProblemDetails;
import dev.sluice.http.RateLimitResponse;
import dev.sluice.metrics.DecisionMetrics;
import dev.sluice.store.CounterStore;
import dev.sluice.store.StoreHealth;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletMapping;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A servlet filter that applies Sluice's rules to every request it sees: registered in {@code web.xml} with
 * init-params (see {@link FilterSettings}), or in code with {@link #RateLimitFilter(FilterSettings)}.
 *
 * <p>Per request (on the {@code REQUEST} dispatch) it evaluates the rules once, then lets the request through with
 * rate-limit headers, answers the rejection ({@code 429}, {@code Retry-After}, a problem body), or holds the request
 * until its slot or its concurrency permit (where a rule {@linkplain dev.sluice.rules.Rule#permitWait() waits}) without
 * holding a container thread (the filter and servlet must be {@code async-supported}). A request's concurrency permits
 * are released, and its reservations of a cost in a unit other than requests settled (at the actual cost its response
 * header or attribute says, or {@link #settle} said), however it ends: when the chain returns or throws or, for a
 * request gone asynchronous, when it completes, times out or fails; a chain that never returns holds its permits until
 * their maximum hold and its reservations at their estimates. A request whose estimate a rule refuses gets a 400. It
 * never throws to the container. The evaluation is left in {@link #EVALUATION_ATTRIBUTE} and,
 * while started, the store in {@link #STORE_ATTRIBUTE}. A store a provider opened is closed on {@link #destroy}; a
 * store given in code is left open. Thread-safe. See {@code docs/design/adapters.md}.
 */
public class RateLimitFilter implements Filter {

    /** The request attribute holding this request's {@link Evaluation}. */
    public static final String EVALUATION_ATTRIBUTE = RateLimitResponse.EVALUATION_ATTRIBUTE;

    /**
     * The servlet context attribute holding the started filter's {@link CounterStore} (set in {@link #init},
     * removed in {@link #destroy}), where the Jersey binding of the same application finds it. With several Sluice
     * filters in one context, the one initialised last.
     */
    public static final String STORE_ATTRIBUTE = RateLimitResponse.STORE_ATTRIBUTE;

    /**
     * The servlet context attribute holding a {@code Supplier<StoreHealth>} of the started filter's store: its mode,
     * the cluster members it sees, and the calls it failed, timed out or shed in the last minute (set in
     * {@link #init}, removed in {@link #destroy}), for the application's health checks and status pages.
     */
    public static final String HEALTH_ATTRIBUTE = RateLimitFilter.class.getName() + ".health";

    /**
     * The servlet context attribute holding a {@code Supplier<LimiterStatus>} of the started filter: what its start
     * line said (store and members seen, rules and their source, failure policy, header style), now (set in
     * {@link #init}, removed in {@link #destroy}).
     */
    public static final String STATUS_ATTRIBUTE = RateLimitFilter.class.getName() + ".status";

    /**
     * The servlet context attribute holding the started filter's {@link ReloadingRuleSet}: the rules in force and
     * their {@linkplain ReloadingRuleSet#version() version} (set in {@link #init}, removed in {@link #destroy}), for
     * the console.
     */
    public static final String RULES_ATTRIBUTE = RateLimitFilter.class.getName() + ".rules";

    private static final System.Logger LOG = System.getLogger(RateLimitFilter.class.getName());

    private final @Nullable FilterSettings programmaticSettings;
    private @Nullable FilterRuntime runtime;
    private @Nullable ServletContext context;
    private volatile boolean warnedAboutBlockingWait;
    private final AtomicBoolean destroyed = new AtomicBoolean();

    /** For {@code web.xml}: the settings come from init-params. */
    public RateLimitFilter() {
        this.programmaticSettings = null;
    }

    /** For programmatic registration: init-params are ignored. */
    public RateLimitFilter(FilterSettings settings) {
        this.programmaticSettings = Objects.requireNonNull(settings, "settings");
    }

    /**
     * Starts the filter, unless {@link #start} did, and logs one {@code INFO} line saying what it limits with
     * ({@link LimiterStatus#startLine()}); publishes what it started in the servlet context's attributes. From
     * {@code web.xml}, an init-param name that is neither the filter's nor its store provider's stops the start (see
     * {@link FilterSettings}).
     *
     * @throws ServletException naming the filter and what is wrong, also logged at {@code ERROR}
     */
    @Override
    public void init(FilterConfig config) throws ServletException {
        FilterRuntime started = runtime;
        if (started == null) {
            try {
                FilterSettings settings = programmaticSettings;
                if (settings == null) {
                    settings = FilterSettings.fromInitParameters(config::getInitParameter);
                    InitParameters.requireKnown(Collections.list(config.getInitParameterNames()), settings,
                            storeLoader());
                }
                started = start(settings, config.getServletContext(), config.getFilterName());
            } catch (RuntimeException e) {
                String message = "Sluice filter '" + config.getFilterName() + "' cannot start: " + e.getMessage();
                LOG.log(System.Logger.Level.ERROR, message);
                throw new ServletException(message, e);
            }
        }
        context = config.getServletContext();
        context.setAttribute(STORE_ATTRIBUTE, started.store());
        context.setAttribute(HEALTH_ATTRIBUTE, started.health());
        context.setAttribute(STATUS_ATTRIBUTE, started.status());
        context.setAttribute(RULES_ATTRIBUTE, started.ruleSource());
    }

    /**
     * Starts a filter set up in code now, before the container initialises it, and logs its start line: for
     * frameworks that build the filter as a bean, so that invalid rules, an unknown store setting or a store that
     * cannot open fail the framework's start with their own exception (a {@code RulesException}, an
     * {@code IllegalArgumentException}), where a container would only log the failure of {@link #init}. Without a
     * servlet context, a {@code rules} location that is neither {@code classpath:} nor {@code file:} is a file path,
     * and the namespace is {@code /} unless set. {@link #init} then only publishes what started.
     *
     * @param filterName the name the filter goes by in log lines and its status
     * @throws IllegalStateException if the filter was set up from {@code web.xml}, or has started already
     */
    public void start(String filterName) {
        FilterSettings settings = programmaticSettings;
        if (settings == null) {
            throw new IllegalStateException("a filter set up from web.xml starts in init");
        }
        if (runtime != null) {
            throw new IllegalStateException("Sluice filter '" + filterName + "' has started already");
        }
        start(settings, null, filterName);
    }

    private FilterRuntime start(FilterSettings settings, @Nullable ServletContext servletContext, String filterName) {
        if (!settings.storeSettingNames().isEmpty()) {
            Stores.requireKnownStoreSettings(settings, storeLoader());
        }
        FilterRuntime started = FilterRuntime.start(settings, servletContext, filterName, storeLoader());
        runtime = started;
        LOG.log(System.Logger.Level.INFO, started.status().get().startLine());
        return started;
    }

    /** Where store providers are looked for: the thread context class loader (the web application's) if any. */
    private static ClassLoader storeLoader() {
        ClassLoader threadLoader = Thread.currentThread().getContextClassLoader();
        return threadLoader != null ? threadLoader : RateLimitFilter.class.getClassLoader();
    }

    @Override
    public void doFilter(ServletRequest servletRequest, ServletResponse servletResponse, FilterChain chain)
            throws IOException, ServletException {
        if (!(servletRequest instanceof HttpServletRequest request)
                || !(servletResponse instanceof HttpServletResponse response)
                || request.getDispatcherType() != DispatcherType.REQUEST
                || request.getAttribute(EVALUATION_ATTRIBUTE) != null) {
            chain.doFilter(servletRequest, servletResponse);
            return;
        }
        FilterRuntime current = started();
        CompletableFuture<Evaluation> evaluating;
        // The clock is read (twice, some 50 ns each) only for metrics that record the time.
        boolean metered = current.metrics() != DecisionMetrics.NONE;
        long start = metered ? System.nanoTime() : 0;
        try {
            evaluating = current.rules().evaluate(new ServletRequestView(request, current.routes()), current.store(),
                    null, current.permits());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Sluice could not evaluate a " + request.getMethod()
                    + " request to " + servletOf(request) + "; letting it through", e);
            chain.doFilter(request, response);
            return;
        }
        long decisionNanos = metered ? System.nanoTime() - start : 0;
        if (evaluating.isDone()) {
            answer(current, request, response, chain, evaluating.join(), decisionNanos);
        } else {
            awaitPermit(current, request, response, chain, evaluating, decisionNanos);
        }
    }

    /** Records the request's evaluation and answers it: through (with headers), rejected, or held for its slot. */
    private void answer(FilterRuntime current, HttpServletRequest request, HttpServletResponse response,
                        FilterChain chain, Evaluation evaluation, long decisionNanos)
            throws IOException, ServletException {
        RateLimitResponse answer = recorded(current, request, response, evaluation, decisionNanos).orElse(null);
        if (answer == null) {
            chain.doFilter(request, response);
            return;
        }
        if (answer.rejected()) {
            reject(answer.problem(), response);
        } else if (!evaluation.holdsUntilEnd()) {
            pass(current, request, response, chain, evaluation);
        } else {
            // Ended when the chain returns or throws; a request still asynchronous then, when it ends.
            HttpServletResponse capturing = CostCapture.around(request, response, evaluation);
            boolean asynchronous = false;
            try {
                pass(current, request, capturing, chain, evaluation);
                asynchronous = request.isAsyncStarted();
            } finally {
                if (asynchronous) {
                    request.getAsyncContext().addListener(new EndingListener(evaluation, request, capturing));
                } else {
                    evaluation.end(CostCapture.ended(request, capturing));
                }
            }
        }
    }

    /**
     * Records the request's evaluation (the request attribute, the metrics) and writes its rate-limit headers; the
     * answer they belong to, empty when no rule counted the request.
     */
    private Optional<RateLimitResponse> recorded(FilterRuntime current, HttpServletRequest request,
                                                 HttpServletResponse response, Evaluation evaluation,
                                                 long decisionNanos) {
        request.setAttribute(EVALUATION_ATTRIBUTE, evaluation);
        if (current.metrics() != DecisionMetrics.NONE) {
            try {
                current.metrics().recorded(evaluation, decisionNanos);
            } catch (RuntimeException e) {
                // The request is counted and decided: a broken metrics sink must not undo that.
                LOG.log(System.Logger.Level.WARNING, "Sluice could not record metrics for a " + request.getMethod()
                        + " request to " + servletOf(request), e);
            }
        }
        Optional<RateLimitResponse> answer = RateLimitResponse.of(evaluation);
        answer.ifPresent(headers -> headers.writeHeaders(current.headerStyle(), response::setHeader));
        return answer;
    }

    /**
     * Holds a request that waits for a concurrency permit without holding a container thread (the filter and servlet
     * must be {@code async-supported}; else on this thread, warned once): when the wait ends the request is answered
     * on the filter's thread, through an asynchronous dispatch when it got its permit. A request that ends while
     * waiting (a client that went away, noticed by the container) cancels its wait, which gives back everything it
     * took and leaves the queue.
     */
    private void awaitPermit(FilterRuntime current, HttpServletRequest request, HttpServletResponse response,
                             FilterChain chain, CompletableFuture<Evaluation> evaluating, long decisionNanos)
            throws IOException, ServletException {
        if (!request.isAsyncSupported()) {
            warnOnce(request, "waits for concurrency permits");
            Evaluation evaluation;
            try {
                evaluation = evaluating.get();
            } catch (InterruptedException e) {
                evaluating.cancel(false);
                Thread.currentThread().interrupt();
                throw new ServletException("interrupted while waiting for a concurrency permit", e);
            } catch (ExecutionException e) {
                warnFailedAfterWait(request, e.getCause());
                chain.doFilter(request, response);
                return;
            }
            answer(current, request, response, chain, evaluation, decisionNanos);
            return;
        }
        // Wrapped before the wait, as the dispatch after it carries this response: armed once the evaluation is known.
        CostCapture capture = new CostCapture(request, response);
        AsyncContext async = request.startAsync(request, capture);
        async.setTimeout(0);
        async.addListener(new AbandonedWait(evaluating));
        evaluating.whenComplete((evaluation, failure) -> {
            if (evaluating.isCancelled()) {
                return;
            }
            try {
                if (evaluation == null) {
                    warnFailedAfterWait(request, failure);
                    async.dispatch();
                } else {
                    capture.arm(evaluation);
                    answerAfterWait(current, request, capture, async, evaluation, decisionNanos);
                }
            } catch (IOException | RuntimeException e) {
                // The client went away (or the container gave up on the request) as its wait ended.
                if (evaluation != null) {
                    evaluation.end(capture);
                }
                LOG.log(System.Logger.Level.DEBUG, "a request that waited for a permit could not be answered", e);
            }
        });
    }

    /**
     * Answers a request whose wait ended: rejected (completing it), or sent on by an asynchronous dispatch (the filter
     * lets a dispatched request through), its permits released and reservations settled when it ends as for any
     * asynchronous request.
     */
    private void answerAfterWait(FilterRuntime current, HttpServletRequest request, CostCapture response,
                                 AsyncContext async, Evaluation evaluation, long decisionNanos) throws IOException {
        RateLimitResponse answer = recorded(current, request, response, evaluation, decisionNanos).orElseThrow();
        if (answer.rejected()) {
            reject(answer.problem(), response);
            async.complete();
            return;
        }
        async.addListener(new EndingListener(evaluation, request, response));
        dispatchAfter(current, async, evaluation.delay());
    }

    /** Lets an allowed request through, now or after its delay. */
    private void pass(FilterRuntime current, HttpServletRequest request, HttpServletResponse response,
                      FilterChain chain, Evaluation evaluation) throws IOException, ServletException {
        if (evaluation.delay().isZero()) {
            chain.doFilter(request, response);
        } else {
            delay(current, request, response, chain, evaluation.delay());
        }
    }

    /**
     * The servlet a request is mapped to, for log messages: its name and mapping pattern, never the request's URI,
     * whose path (and so a {@code path} key such as a user name) is client data.
     */
    private static String servletOf(HttpServletRequest request) {
        HttpServletMapping mapping = request.getHttpServletMapping();
        return mapping == null ? "an unknown servlet"
                : "servlet '" + mapping.getServletName() + "' (" + mapping.getPattern() + ")";
    }

    private static void reject(ProblemDetails problem, HttpServletResponse response) throws IOException {
        byte[] body = problem.toJson().getBytes(StandardCharsets.UTF_8);
        response.setStatus(problem.status());
        response.setContentType(ProblemDetails.MEDIA_TYPE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** Logs that a request's evaluation failed after its wait for a permit, and that it goes through. */
    private static void warnFailedAfterWait(HttpServletRequest request, @Nullable Throwable failure) {
        LOG.log(System.Logger.Level.WARNING, "Sluice could not evaluate a " + request.getMethod() + " request to "
                + servletOf(request) + " after its wait; letting it through", failure);
    }

    /** Warns once that requests to the servlet wait on a container thread ({@code what} they wait for). */
    private void warnOnce(HttpServletRequest request, String what) {
        if (!warnedAboutBlockingWait) {
            warnedAboutBlockingWait = true;
            LOG.log(System.Logger.Level.WARNING, "Sluice " + what + " to " + servletOf(request) + " on a container"
                    + " thread: mark the filter and the servlet async-supported to free it while waiting");
        }
    }

    private void delay(FilterRuntime current, HttpServletRequest request, HttpServletResponse response,
                       FilterChain chain, Duration delay) throws IOException, ServletException {
        if (request.isAsyncSupported()) {
            AsyncContext async = request.startAsync(request, response);
            async.setTimeout(0);
            dispatchAfter(current, async, delay);
            return;
        }
        warnOnce(request, "delays requests");
        try {
            TimeUnit.NANOSECONDS.sleep(delay.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ServletException("interrupted while delaying the request", e);
        }
        chain.doFilter(request, response);
    }

    /** Dispatches {@code async} again (the filter then lets it through) after {@code delay}; at once for none. */
    private static void dispatchAfter(FilterRuntime current, AsyncContext async, Duration delay) {
        if (delay.isZero()) {
            async.dispatch();
        } else {
            current.scheduler().schedule(() -> async.dispatch(), delay.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Stops the filter: closes what it started, and the store if it opened it. Once only, so that a framework that
     * manages the filter as a bean and the container may both call it.
     */
    @Override
    public void destroy() {
        FilterRuntime started = runtime;
        if (started == null || !destroyed.compareAndSet(false, true)) {
            return;
        }
        if (context != null && context.getAttribute(STORE_ATTRIBUTE) == started.store()) {
            context.removeAttribute(STORE_ATTRIBUTE);
            context.removeAttribute(HEALTH_ATTRIBUTE);
            context.removeAttribute(STATUS_ATTRIBUTE);
            context.removeAttribute(RULES_ATTRIBUTE);
        }
        started.close();
    }

    /**
     * Settles the reservations of {@code request} (its rules' costs in units other than requests, such as tokens) at
     * {@code actualCost}, now, without waiting for the store: what an application that knows the cost says instead of
     * (or before) the response header or attribute its rules read. Each reservation settles once: the request's end
     * then leaves it as it is. Nothing for a request Sluice did not evaluate, or that reserved nothing. See
     * {@link Evaluation#settle(long)}; for a request with reservations in several units,
     * {@link Evaluation#settle(String, long)} on its {@link #EVALUATION_ATTRIBUTE}.
     *
     * @throws IllegalArgumentException when {@code actualCost} is negative
     */
    public static void settle(ServletRequest request, long actualCost) {
        if (request.getAttribute(EVALUATION_ATTRIBUTE) instanceof Evaluation evaluation) {
            evaluation.settle(actualCost);
        }
    }

    /**
     * The store this filter counts in.
     *
     * @throws IllegalStateException before it started ({@link #init} or {@link #start})
     */
    public CounterStore store() {
        return started().store();
    }

    /**
     * What the filter limits with, now: what its start line said, with the current members and rules.
     *
     * @throws IllegalStateException before it started ({@link #init} or {@link #start})
     */
    public LimiterStatus status() {
        return started().status().get();
    }

    /**
     * The rules in force and their {@linkplain ReloadingRuleSet#version() version}, for status pages and the console.
     *
     * @throws IllegalStateException before it started ({@link #init} or {@link #start})
     */
    public ReloadingRuleSet rules() {
        return started().ruleSource();
    }

    /**
     * The requests waiting for a concurrency permit in this filter now.
     *
     * @throws IllegalStateException before it started ({@link #init} or {@link #start})
     */
    public int waitingForPermits() {
        return started().waiters().waiting();
    }

    /**
     * How the filter's store is doing (see {@link StoreHealth}).
     *
     * @throws IllegalStateException before it started ({@link #init} or {@link #start})
     */
    public StoreHealth health() {
        return started().store().services().health();
    }

    /**
     * The overrides of this filter's rules, kept in its store (so shared by every instance sharing it) and checked
     * against the rules in force (see {@link RuleOverrides}).
     *
     * @throws IllegalStateException before it started ({@link #init} or {@link #start})
     */
    public RuleOverrides overrides() {
        FilterRuntime started = started();
        return new RuleOverrides(started.ruleSource(), started.store());
    }

    private FilterRuntime started() {
        FilterRuntime started = runtime;
        if (started == null) {
            throw new IllegalStateException("the Sluice filter has not been initialised");
        }
        return started;
    }
}
