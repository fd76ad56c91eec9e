package dev.sluice.console;

import dev.sluice.engine.Evaluation;
import dev.sluice.http.RateLimitResponse;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Feeds a {@link ConsoleRecorder} from {@code web.xml}: mapped before the Sluice filter, it records the
 * {@link Evaluation} that Sluice leaves in the request attribute {@link RateLimitResponse#EVALUATION_ATTRIBUTE} once
 * the rest of the chain returns, however Sluice decided, and its reservations once the request has ended (for a request
 * gone asynchronous, when it completes). Creates the recorder on {@link #init} and publishes it in the
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
                if (!evaluation.reservations().isEmpty()) {
                    endedLater(request, evaluation);
                }
            }
        }
    }

    /**
     * Records the request's reservations once it has ended: now, or, for a request still asynchronous, when it ends
     * (after Sluice's filter, whose listener was added first, settled them).
     */
    private void endedLater(ServletRequest request, Evaluation evaluation) {
        if (!request.isAsyncStarted()) {
            recorder.ended(evaluation);
            return;
        }
        request.getAsyncContext().addListener(new AsyncListener() {
            private final AtomicBoolean once = new AtomicBoolean();

            private void ended() {
                if (once.compareAndSet(false, true)) {
                    recorder.ended(evaluation);
                }
            }

            @Override
            public void onComplete(AsyncEvent event) {
                ended();
            }

            @Override
            public void onTimeout(AsyncEvent event) {
                ended();
            }

            @Override
            public void onError(AsyncEvent event) {
                ended();
            }

            @Override
            public void onStartAsync(AsyncEvent event) {
                AsyncContext again = event.getAsyncContext();
                if (again != null) {
                    again.addListener(this);
                }
            }
        });
    }
}
