package dev.sluice.demo;

import dev.sluice.TimeSource;
import dev.sluice.rules.Evaluation;
import dev.sluice.servlet.RateLimitFilter;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;

/**
 * Feeds {@link DecisionStats}: registered before the Sluice filter, it reads the {@link Evaluation} that Sluice
 * leaves in the request attribute {@link RateLimitFilter#EVALUATION_ATTRIBUTE} once the rest of the chain returns,
 * whether Sluice let the request through, rejected it or queued it. Creates the stats and publishes them in the
 * servlet context attribute {@link DecisionStats#ATTRIBUTE}. Thread-safe.
 */
public final class DecisionStatsFilter implements Filter {

    private DecisionStats stats;

    @Override
    public void init(FilterConfig config) {
        stats = new DecisionStats(TimeSource.system());
        config.getServletContext().setAttribute(DecisionStats.ATTRIBUTE, stats);
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        try {
            chain.doFilter(request, response);
        } finally {
            if (request.getAttribute(RateLimitFilter.EVALUATION_ATTRIBUTE) instanceof Evaluation evaluation) {
                stats.record(evaluation);
            }
        }
    }
}
