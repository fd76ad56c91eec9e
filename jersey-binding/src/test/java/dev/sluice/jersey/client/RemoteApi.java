package dev.sluice.jersey.client;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A remote API for the client tests: records the arrival time ({@link System#nanoTime()}) of every request, answers
 * 429 to a request that would make more than {@code permits} arrivals in any window of {@code windowNanos}, and can
 * be told to answer the next request 429 with a {@code Retry-After}.
 */
final class RemoteApi extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final int permits;
    private final long windowNanos;
    private final transient List<Long> arrivals = new ArrayList<>();
    private final transient List<Long> rejections = new ArrayList<>();
    private @Nullable String retryAfterOnce;
    private long pausedAt = -1;

    RemoteApi(int permits, long windowNanos) {
        this.permits = permits;
        this.windowNanos = windowNanos;
    }

    @Override
    protected synchronized void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        long now = System.nanoTime();
        if (retryAfterOnce != null) {
            response.setStatus(429);
            response.setHeader("Retry-After", retryAfterOnce);
            retryAfterOnce = null;
            pausedAt = now;
            return;
        }
        long inWindow = arrivals.stream().filter(t -> t > now - windowNanos).count();
        if (inWindow >= permits) {
            rejections.add(now);
            response.setStatus(429);
            response.setHeader("Retry-After", "1");
            return;
        }
        arrivals.add(now);
        response.setContentType("text/plain");
        response.getWriter().print("ok");
    }

    /** Answers the next request 429 with {@code Retry-After: value} (seconds or an HTTP date). */
    synchronized void rejectNextWithRetryAfter(String value) {
        retryAfterOnce = value;
    }

    synchronized List<Long> arrivals() {
        return List.copyOf(arrivals);
    }

    synchronized List<Long> rejections() {
        return List.copyOf(rejections);
    }

    /** When the one 429 of {@link #rejectNextWithRetryAfter} was answered; -1 before. */
    synchronized long pausedAt() {
        return pausedAt;
    }
}
