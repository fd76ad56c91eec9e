package dev.sluice.hazelcast;

import com.hazelcast.internal.util.ConcurrencyUtil;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/*
 * Hazelcast completes the future of every async map call (submitToKey, which the failure-policy store waits on) through
 * its "default async executor": the common fork-join pool, or, where that pool has a single thread (machines with two
 * CPUs or fewer, the usual small container), a new thread per task. There, each async decision started two threads
 * (measured: 20,000 per 10,000 calls on a 2-CPU machine), which caps throughput and piles up threads under load. So
 * when Hazelcast is about to fall back to a thread per task, Sluice gives it a small fork-join pool instead: what it
 * gets on larger machines, never a thread per call. This is a process-wide Hazelcast setting, so it is changed only in
 * that case: an executor the application installed is left alone, and a Hazelcast without this internal setting
 * (another version) is used as it is.
 */

/** Keeps Hazelcast's callbacks off a thread-per-task executor. Thread-safe. */
final class CallbackExecutor {

    private static final int PARALLELISM = 2;

    private CallbackExecutor() {
    }

    /** Installs the pool as Hazelcast's default async executor if Hazelcast would otherwise start a thread per task. */
    static synchronized void avoidThreadPerTask() {
        try {
            // Hazelcast's thread-per-task default is a lambda of ConcurrencyUtil; anything else was chosen on purpose.
            Executor current = ConcurrencyUtil.getDefaultAsyncExecutor();
            if (current.getClass().getName().startsWith(ConcurrencyUtil.class.getName() + "$$Lambda")) {
                ConcurrencyUtil.setDefaultAsyncExecutor(new ForkJoinPool(PARALLELISM,
                        ForkJoinPool.defaultForkJoinWorkerThreadFactory, null, true));
            }
        } catch (LinkageError otherHazelcastVersion) {
            // This Hazelcast has no such setting: it is used as it is.
        }
    }
}
