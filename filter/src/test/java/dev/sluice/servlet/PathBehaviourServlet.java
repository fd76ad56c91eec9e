package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;

/**
 * The servlet behind the filter's concurrency-permit and cost tests: ends each request its own way, by the path under
 * {@code /c/}, counting the requests in flight in it, the most at once, those served, and the order of {@code record}
 * requests. Paths: {@code throw}, {@code block} (until {@link #unblock}), {@code slow}, {@code stream} (until the
 * client goes), {@code record?n=}, {@code async-complete}, {@code async-timeout}, {@code async-error} (its asynchronous
 * dispatch throws); any other answers {@code ok}. Before that, whatever the path, it says an actual cost as the query
 * asks: {@code used=} in the response header {@code X-Tokens-Used}, {@code said=} in the request attribute
 * {@code tokens}, {@code settle=} through {@link RateLimitFilter#settle}. Thread-safe.
 */
final class PathBehaviourServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    final transient CountDownLatch entered = new CountDownLatch(1);
    final transient CountDownLatch unblock = new CountDownLatch(1);
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger mostInFlight = new AtomicInteger();
    final AtomicInteger served = new AtomicInteger();
    final AtomicInteger streamFailed = new AtomicInteger();
    final transient List<String> recorded = new CopyOnWriteArrayList<>();

    /** Waits, boundedly, for {@code condition}: the bound is a time-out of the test, not a claim on speed. */
    static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 30 s").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    /** A GET of {@code path} on {@code server}, answered later. */
    static CompletableFuture<HttpResponse<String>> sendAsync(JettyServer server, String path) {
        return server.client().sendAsync(HttpRequest.newBuilder(server.uri(path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (request.getDispatcherType() == DispatcherType.ASYNC && "/c/async-error".equals(request.getPathInfo())) {
            throw new IllegalStateException("the asynchronous dispatch fails");
        }
        sayTheCost(request, response);
        mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        served.incrementAndGet();
        boolean asynchronous = false;
        try {
            switch (request.getPathInfo()) {
                case "/c/throw" -> throw new IllegalStateException("the servlet fails");
                case "/c/block" -> block();
                case "/c/slow" -> Thread.yield();
                case "/c/stream" -> stream(response);
                case "/c/record" -> recorded.add(request.getParameter("n"));
                case "/c/async-complete" -> {
                    asynchronous = true;
                    AsyncContext async = request.startAsync();
                    async.start(() -> {
                        inFlight.decrementAndGet();
                        async.complete();
                    });
                }
                case "/c/async-timeout" -> {
                    asynchronous = true;
                    inFlight.decrementAndGet();
                    AsyncContext async = request.startAsync();
                    // Answered by the servlet's own listener, as Jetty asks, and after 200 ms: a time-out of 1 ms,
                    // which can expire while this dispatch is still returning, sometimes left the request unanswered
                    // under concurrent requests (Jetty 12.1, with no rule at all).
                    async.addListener(new TimedOut());
                    async.setTimeout(200);
                }
                case "/c/async-error" -> {
                    asynchronous = true;
                    inFlight.decrementAndGet();
                    request.startAsync().dispatch();
                }
                default -> response.getWriter().write("ok");
            }
        } finally {
            if (!asynchronous) {
                inFlight.decrementAndGet();
            }
        }
    }

    /** Answers a request whose asynchronous part timed out: 500, completed. */
    private static final class TimedOut implements AsyncListener {
        @Override
        public void onTimeout(AsyncEvent event) {
            ((HttpServletResponse) event.getAsyncContext().getResponse()).setStatus(500);
            event.getAsyncContext().complete();
        }

        @Override
        public void onComplete(AsyncEvent event) {
        }

        @Override
        public void onError(AsyncEvent event) {
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
        }
    }

    private static void sayTheCost(HttpServletRequest request, HttpServletResponse response) {
        String used = request.getParameter("used");
        if (used != null) {
            response.setHeader("X-Tokens-Used", used);
        }
        String said = request.getParameter("said");
        if (said != null) {
            request.setAttribute("tokens", Long.valueOf(said));
        }
        String settle = request.getParameter("settle");
        if (settle != null) {
            RateLimitFilter.settle(request, Long.parseLong(settle));
        }
    }

    private void block() {
        entered.countDown();
        try {
            unblock.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Writes until the client has gone away. */
    private void stream(HttpServletResponse response) throws IOException {
        byte[] chunk = new byte[8192];
        try {
            OutputStream out = response.getOutputStream();
            while (true) {
                out.write(chunk);
                out.flush();
            }
        } catch (IOException clientGone) {
            streamFailed.incrementAndGet();
            throw clientGone;
        }
    }

    /**
     * Mounts {@code filter} (on the request and asynchronous dispatches) in front of this servlet at {@code /*} in
     * {@code context}, both async-supported or neither.
     */
    void mount(ServletContextHandler context, RateLimitFilter filter, boolean asyncSupported) {
        FilterHolder filterHolder = new FilterHolder(filter);
        filterHolder.setAsyncSupported(asyncSupported);
        context.addFilter(filterHolder, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
        ServletHolder servletHolder = new ServletHolder(this);
        servletHolder.setAsyncSupported(asyncSupported);
        context.addServlet(servletHolder, "/*");
    }
}
