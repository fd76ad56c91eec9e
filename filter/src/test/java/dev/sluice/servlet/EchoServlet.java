package dev.sluice.servlet;

import dev.sluice.engine.Evaluation;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The application behind the filter in tests: answers 200 with the order in which it served the request and what
 * the filter decided ({@code served=N delay=NANOS slot=NANOS at=NANOS shadowRejected=B}: the slot is the arrival
 * time stamped by {@link #ARRIVAL} plus the delay, {@code at} the time the servlet ran), followed by the counter keys
 * ({@link HostileInput#keys}); {@code /forward/...} forwards to the rest of the path and {@code /include/...} includes
 * it.
 */
public final class EchoServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    /** The request attribute holding the {@link System#nanoTime()} at which the request reached the filters. */
    static final String ARRIVAL = "test.arrival";

    /** A filter to put before Sluice's: stamps each request's arrival. */
    static final jakarta.servlet.Filter STAMP_ARRIVAL = (request, response, chain) -> {
        request.setAttribute(ARRIVAL, System.nanoTime());
        chain.doFilter(request, response);
    };

    private final transient AtomicInteger served = new AtomicInteger();

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getRequestURI();
        try {
            if (path.startsWith("/forward/")) {
                request.getRequestDispatcher(path.substring("/forward".length())).forward(request, response);
                return;
            }
            if (path.startsWith("/include/")) {
                request.getRequestDispatcher(path.substring("/include".length())).include(request, response);
                return;
            }
        } catch (jakarta.servlet.ServletException e) {
            throw new IOException(e);
        }
        long servedAt = System.nanoTime();
        int sequence = served.incrementAndGet();
        Evaluation evaluation = (Evaluation) request.getAttribute(RateLimitFilter.EVALUATION_ATTRIBUTE);
        long delay = evaluation == null ? 0 : evaluation.delay().toNanos();
        Object arrival = request.getAttribute(ARRIVAL);
        response.setContentType("text/plain;charset=UTF-8");
        response.getWriter().print("served=" + sequence + " delay=" + delay
                + " slot=" + (arrival == null ? 0 : (Long) arrival + delay) + " at=" + servedAt
                + " shadowRejected=" + (evaluation != null && evaluation.shadowRejected())
                + " " + HostileInput.keys(evaluation));
    }

    /** How many requests this servlet has served (forwards and includes count where they end up). */
    int served() {
        return served.get();
    }
}
