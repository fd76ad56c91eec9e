package dev.sluice.algorithm;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.internal.state.Transition;
import java.time.Duration;

/** One key's state under one policy, driven by hand along a timeline: the algorithms without any store. */
final class Timeline {

    static final long START = 1_767_225_600_000_000_000L;

    private final Policy policy;
    private long[][] state;
    private long now = START;

    Timeline(Algorithm algorithm, Limit... limits) {
        this.policy = Policy.of(algorithm, limits);
    }

    Decision request() {
        return request(1);
    }

    Decision request(long cost) {
        return request(cost, Long.MAX_VALUE);
    }

    Decision request(long cost, long maxDelay) {
        Transition transition = policy.apply(state, now, cost, maxDelay);
        state = transition.state();
        return transition.decision();
    }

    Decision peek() {
        return policy.apply(state, now, 0, Long.MAX_VALUE).decision();
    }

    /** Requests one permit at a time until one is rejected; returns how many were granted. */
    int drain() {
        int granted = 0;
        while (request().allowed()) {
            granted++;
        }
        return granted;
    }

    Timeline at(Duration sinceStart) {
        now = START + sinceStart.toNanos();
        return this;
    }

    Timeline after(Duration duration) {
        now += duration.toNanos();
        return this;
    }

    Timeline afterNanos(long nanos) {
        now += nanos;
        return this;
    }

    long[][] state() {
        return state;
    }
}
