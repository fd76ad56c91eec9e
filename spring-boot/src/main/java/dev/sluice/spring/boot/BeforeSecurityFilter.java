package dev.sluice.spring.boot;

import dev.sluice.servlet.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.IOException;
import java.util.Objects;

/*
 * Why the request is handed on with care: the filter lets a request through uncounted when it already carries an
 * evaluation (it counts each request once) or when it comes on an asynchronous dispatch, so the filter after Spring
 * Security would count nothing this one evaluated first, and nothing this one held for its slot or permit (such a
 * request goes on to Spring Security on an asynchronous dispatch). On its first way past this filter, the request
 * leaves this filter's evaluation behind, and a held one is shown to the rest of the chain as the request dispatch it
 * is for them: their first sight of it.
 */

/**
 * Sluice's filter before Spring Security's filter chain ({@code sluice.before-security.rules}): a
 * {@link RateLimitFilter} with rules of its own, counting every request before any login is checked, so what Spring
 * Security answers itself (a failed form login, a {@code 401} to wrong HTTP basic credentials) is limited too. A
 * request it lets through then meets the filter after the chain and its rules as if this one were not there. It counts
 * in the store of the filter after the chain, which closes it. Thread-safe.
 */
final class BeforeSecurityFilter implements Filter {

    /** The filter's name, in its start line: {@value}. */
    static final String NAME = "sluice-before-security";

    /** Set on a request once it went past this filter. */
    private static final String PASSED = BeforeSecurityFilter.class.getName() + ".passed";

    private final RateLimitFilter filter;

    /** Around {@code filter}, the started filter of the rules before Spring Security. */
    BeforeSecurityFilter(RateLimitFilter filter) {
        this.filter = Objects.requireNonNull(filter, "filter");
    }

    /** The filter of the rules before Spring Security. */
    RateLimitFilter filter() {
        return filter;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        filter.doFilter(request, response, (passed, passedResponse) -> chain.doFilter(onward(passed), passedResponse));
    }

    /** The request as the rest of the chain is to see it. */
    private static ServletRequest onward(ServletRequest request) {
        if (request.getAttribute(PASSED) != null) {
            return request;
        }
        request.setAttribute(PASSED, Boolean.TRUE);
        request.removeAttribute(RateLimitFilter.EVALUATION_ATTRIBUTE);
        if (request.getDispatcherType() == DispatcherType.REQUEST || !(request instanceof HttpServletRequest http)) {
            return request;
        }
        return new FirstPass(http);
    }

    /** A request this filter held, on the dispatch that first takes it past this filter. */
    private static final class FirstPass extends HttpServletRequestWrapper {

        FirstPass(HttpServletRequest request) {
            super(request);
        }

        @Override
        public DispatcherType getDispatcherType() {
            return DispatcherType.REQUEST;
        }
    }

    @Override
    public void destroy() {
        filter.destroy();
    }
}
