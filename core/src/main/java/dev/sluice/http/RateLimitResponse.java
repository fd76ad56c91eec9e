package dev.sluice.http;

import dev.sluice.Decision;
import dev.sluice.engine.Evaluation;
import dev.sluice.engine.RuleDecision;
import dev.sluice.rules.RuleResponse;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * What an adapter answers for an {@link Evaluation}, for any HTTP stack: the rate-limit header fields and, for a
 * rejection, the status and problem body; a rejection by a concurrency limit gets no {@code Retry-After}, as nobody
 * knows when a request in flight ends, and a request refused for its estimate a 400 and no rate-limit fields (see
 * {@code docs/headers.md}). The servlet filter and the Jersey binding both
 * answer through this class, so a request gets the same response from either.
 *
 * <p>Only enforcing rules shape the response: a request that only shadow rules counted gets nothing (no headers, no
 * rejection). Immutable and thread-safe.
 */
public final class RateLimitResponse {

    /**
     * The request attribute (servlet) or property (JAX-RS) under which an adapter leaves the request's
     * {@link Evaluation}, so that another adapter on the same request counts no rule twice.
     */
    public static final String EVALUATION_ATTRIBUTE = "dev.sluice.evaluation";

    /**
     * The servlet context attribute under which the servlet filter publishes the {@code CounterStore} it counts in,
     * so that the Jersey binding of the same web application, given no store of its own, counts in the same one:
     * one store per application.
     */
    public static final String STORE_ATTRIBUTE = "dev.sluice.store";

    private final Evaluation evaluation;

    private RateLimitResponse(Evaluation evaluation) {
        this.evaluation = evaluation;
    }

    /**
     * The response to {@code evaluation}; empty when no enforcing rule counted the request and none refused it for its
     * estimate (nothing to answer).
     */
    public static Optional<RateLimitResponse> of(Evaluation evaluation) {
        return evaluation.limiting().isEmpty() && evaluation.refusal().isEmpty() ? Optional.empty()
                : Optional.of(new RateLimitResponse(evaluation));
    }

    /** Whether the request is rejected. */
    public boolean rejected() {
        return !evaluation.allowed();
    }

    /**
     * Writes the rate-limit fields of {@code style} (and {@code Retry-After} on a rejection) to {@code header}; none
     * for a request refused for its estimate, which nothing counted.
     */
    public void writeHeaders(HeaderStyle style, BiConsumer<String, String> header) {
        if (evaluation.limiting().isEmpty()) {
            return;
        }
        @Nullable String policies = null;
        @Nullable String counted = null;
        if (style.draft()) {
            // Per request only the numbers are formatted: each policy's items come made, once per policy.
            StringBuilder countedField = new StringBuilder(RateLimitHeaders.FIELD_CAPACITY);
            for (RuleDecision outcome : evaluation.outcomes()) {
                if (outcome.enforced()) {
                    String items = RateLimitHeaders.policyField(outcome.quota());
                    policies = policies == null ? items : policies + ", " + items;
                    RateLimitHeaders.appendRateLimitItem(countedField, outcome.decision(), outcome.concurrency());
                }
            }
            counted = countedField.toString();
        }
        Decision verdict = evaluation.limiting().orElseThrow().decision();
        RateLimitHeaders.write(policies, counted, verdict, !concurrencyRejected(), style, header);
    }

    /**
     * Whether an enforcing concurrency limit rejected the request: then no one knows when it would be granted (when a
     * request in flight ends), and no {@code Retry-After} is sent.
     */
    private boolean concurrencyRejected() {
        for (RuleDecision outcome : evaluation.outcomes()) {
            if (outcome.enforced() && outcome.concurrency() && !outcome.decision().allowed()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The rejection's problem document: its status (429 unless the limiting rule says otherwise) and body, naming
     * every violated limit, the longest wait first.
     *
     * @throws IllegalStateException when the request is not rejected
     */
    public ProblemDetails problem() {
        if (!rejected()) {
            throw new IllegalStateException("the request is not rejected");
        }
        Optional<Evaluation.Refusal> refused = evaluation.refusal();
        if (refused.isPresent()) {
            return ProblemDetails.invalidEstimate(refused.get().reason());
        }
        // A concurrency limit first (the detail names it), then the longest wait.
        List<Decision> rejections = evaluation.outcomes().stream()
                .filter(outcome -> outcome.enforced() && !outcome.decision().allowed())
                .sorted(Comparator.comparing((RuleDecision outcome) -> !outcome.concurrency())
                        .thenComparing(outcome -> outcome.decision().retryAfterNanos(), Comparator.reverseOrder()))
                .map(RuleDecision::decision).toList();
        @Nullable RuleResponse response = evaluation.response().orElse(null);
        boolean retryKnown = !concurrencyRejected();
        return response == null ? ProblemDetails.of(rejections, retryKnown, ProblemDetails.TOO_MANY_REQUESTS, null)
                : ProblemDetails.of(rejections, retryKnown, response.status(), response.message());
    }
}
