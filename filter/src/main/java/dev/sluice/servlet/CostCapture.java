package dev.sluice.servlet;

import dev.sluice.engine.Evaluation;
import dev.sluice.engine.Reservation;
import dev.sluice.rules.Rule;
import dev.sluice.rules.match.RequestEnd;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The response of a request whose rules read its actual cost from a response header the application sets
 * ({@link dev.sluice.rules.ActualCost}): captures those fields as the application sets them, and keeps them from the
 * response unless every rule reading one keeps it; every other field passes through. Armed with the request's
 * evaluation once it is known (a request that waited for a permit is wrapped before); unarmed it captures nothing.
 * When the request ends it is the {@link RequestEnd} its evaluation settles by, with the request's attributes. The
 * application must set the fields on the response it was given (or a wrapper of it), not on the container's own.
 * Thread-safe. See {@code docs/design/costs.md}.
 */
final class CostCapture extends HttpServletResponseWrapper implements RequestEnd {

    private final HttpServletRequest request;
    /** The fields captured, lower case; empty until armed. */
    private volatile Set<String> captured = Set.of();
    /** The fields kept from the response, lower case. */
    private volatile Set<String> stripped = Set.of();
    private final Map<String, String> values = new ConcurrentHashMap<>();

    CostCapture(HttpServletRequest request, HttpServletResponse response) {
        super(response);
        this.request = request;
    }

    /**
     * The response of {@code request} capturing what {@code evaluation}'s reservations read from response headers; the
     * response itself when they read none.
     */
    static HttpServletResponse around(HttpServletRequest request, HttpServletResponse response,
                                      Evaluation evaluation) {
        if (!readsHeaders(evaluation.reservations())) {
            return response;
        }
        CostCapture capture = new CostCapture(request, response);
        capture.arm(evaluation);
        return capture;
    }

    /**
     * How {@code request} ended, its response being {@code response}: the fields a {@link CostCapture} captured, and
     * the request's attributes.
     */
    static RequestEnd ended(HttpServletRequest request, HttpServletResponse response) {
        if (response instanceof CostCapture capture) {
            return capture;
        }
        return new RequestEnd() {
            @Override
            public @Nullable String responseHeader(String name) {
                return null;
            }

            @Override
            public @Nullable Object attribute(String name) {
                return request.getAttribute(name);
            }
        };
    }

    /** Captures (and strips) from now on the fields {@code evaluation}'s reservations read. */
    void arm(Evaluation evaluation) {
        Set<String> read = ConcurrentHashMap.newKeySet();
        Set<String> strip = ConcurrentHashMap.newKeySet();
        for (Reservation reservation : evaluation.reservations()) {
            Rule rule = reservation.outcome().rule();
            rule.actualCost().capturedHeader().ifPresent(name -> {
                String field = name.toLowerCase(Locale.ROOT);
                read.add(field);
                if (!rule.actualCost().keepsHeader()) {
                    strip.add(field);
                }
            });
        }
        captured = Set.copyOf(read);
        stripped = Set.copyOf(strip);
    }

    private static boolean readsHeaders(Collection<Reservation> reservations) {
        for (Reservation reservation : reservations) {
            if (reservation.outcome().rule().actualCost().capturedHeader().isPresent()) {
                return true;
            }
        }
        return false;
    }

    /** Records {@code value} if {@code name} is captured; whether it goes on to the response. */
    private boolean passes(String name, String value) {
        String field = name.toLowerCase(Locale.ROOT);
        if (captured.contains(field)) {
            values.put(field, value);
        }
        return !stripped.contains(field);
    }

    @Override
    public void setHeader(String name, String value) {
        if (passes(name, String.valueOf(value))) {
            super.setHeader(name, value);
        }
    }

    @Override
    public void addHeader(String name, String value) {
        if (passes(name, String.valueOf(value))) {
            super.addHeader(name, value);
        }
    }

    @Override
    public void setIntHeader(String name, int value) {
        if (passes(name, Integer.toString(value))) {
            super.setIntHeader(name, value);
        }
    }

    @Override
    public void addIntHeader(String name, int value) {
        if (passes(name, Integer.toString(value))) {
            super.addIntHeader(name, value);
        }
    }

    /** A stripped field as the application set it, so that it reads back what it wrote. */
    @Override
    public @Nullable String getHeader(String name) {
        String field = name.toLowerCase(Locale.ROOT);
        return stripped.contains(field) ? values.get(field) : super.getHeader(name);
    }

    @Override
    public boolean containsHeader(String name) {
        String field = name.toLowerCase(Locale.ROOT);
        return stripped.contains(field) ? values.containsKey(field) : super.containsHeader(name);
    }

    @Override
    public @Nullable String responseHeader(String name) {
        return values.get(name.toLowerCase(Locale.ROOT));
    }

    @Override
    public @Nullable Object attribute(String name) {
        return request.getAttribute(name);
    }
}
