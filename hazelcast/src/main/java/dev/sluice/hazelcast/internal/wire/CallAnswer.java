package dev.sluice.hazelcast.internal.wire;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The answer to a decision the store sends the cluster. Cancelling it withdraws the decision while it still waits to
 * be sent (a batched decision whose key has a call in flight): it is then never sent. Once sent, the members may count
 * it, so cancelling is refused ({@code false}) and the answer completes when they do; a caller that bounds its wait,
 * such as the failure-policy store, so keeps the call counted as in flight until it really ends. Stages made from it
 * are answers of calls already sent. Thread-safe.
 */
public final class CallAnswer<T> extends CompletableFuture<T> {

    /** Set once the call carrying this decision is sent, or once it is withdrawn; whichever comes first wins. */
    private final AtomicBoolean settled;

    private CallAnswer(boolean sent) {
        this.settled = new AtomicBoolean(sent);
    }

    /** The answer of a decision that waits to be sent. */
    public static <T> CallAnswer<T> waiting() {
        return new CallAnswer<>(false);
    }

    /** The answer of a call sent now. */
    public static <T> CallAnswer<T> sent() {
        return new CallAnswer<>(true);
    }

    /**
     * The answer of {@code call}, sent now: completed on the thread that completes {@code call}, with its value or its
     * failure (unwrapped from a {@link CompletionException}). The callback is given {@code Runnable::run} as its
     * executor: Hazelcast's futures run a callback without one on Hazelcast's async executor, a hand-over per call.
     */
    public static <T> CallAnswer<T> of(CompletionStage<T> call) {
        CallAnswer<T> answer = sent();
        call.whenCompleteAsync((value, failure) -> {
            if (failure == null) {
                answer.complete(value);
            } else {
                answer.completeExceptionally(failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure);
            }
        }, Runnable::run);
        return answer;
    }

    /** Marks the decision sent; false when it was withdrawn first, and must not be sent. */
    public boolean send() {
        return settled.compareAndSet(false, true);
    }

    /** Withdraws a decision not yet sent; refused (false) once it is. */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return settled.compareAndSet(false, true) && super.cancel(mayInterruptIfRunning);
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return sent();
    }
}
