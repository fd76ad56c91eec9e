package dev.sluice.console;

import dev.sluice.http.RateLimitResponse;
import dev.sluice.rules.Evaluation;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;

/**
 * Feeds a {@link ConsoleRecorder} from {@code web.xml}: mapped before the Sluice filter, it records the
 * {@link Evaluation} that Sluice leaves in the request attribute {@link RateLimitResponse#EVALUATION_ATTRIBUTE} once
 * the rest of the chain returns, however Sluice decided. Creates the recorder on {@link #init} and publishes it in the
 * servlet context attribute {@link #RECORDER_ATTRIBUTE}, where the application finds it to build its {@link Console}.
 * For filters built in code, give the recorder as their metrics instead. Thread-safe.
 */
public final class ConsoleRecordingFilter implements Filter {

    /** The servlet context attribute holding the {@link ConsoleRecorder} this filter feeds. */
    public static final String RECORDER_ATTRIBUTE = ConsoleRecorder.class.getName();

    private ConsoleRecorder recorder;

    @Override
    public void init(FilterConfig config) {
        recorder = new ConsoleRecorder();
        config.getServletContext().setAttribute(RECORDER_ATTRIBUTE, recorder);
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        try {
            chain.doFilter(request, response);
        } finally {
            if (request.getAttribute(RateLimitResponse.EVALUATION_ATTRIBUTE) instanceof Evaluation evaluation) {
                recorder.recorded(evaluation, 0);
            }
        }
    }
}
