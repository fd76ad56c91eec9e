package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.internal.util.ConcurrencyUtil;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * Keeps Hazelcast's callbacks off a thread-per-task executor: a process-wide setting changed only where Hazelcast
 * would otherwise start a thread per task (see {@code docs/design/batching.md}, Threads). Called by every store, and
 * on a member by the tasks that wait for calls they make there. Thread-safe.
 */
public final class CallbackExecutor {

    private static final int PARALLELISM = 2;

    /** Set once the setting has been looked at in this process: later calls cost one volatile read. */
    private static volatile boolean settled;

    private CallbackExecutor() {
    }

    /** Installs the pool as Hazelcast's default async executor if Hazelcast would otherwise start a thread per task. */
    public static void avoidThreadPerTask() {
        if (!settled) {
            settle();
        }
    }

    private static synchronized void settle() {
        if (settled) {
            return;
        }
        settled = true;
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
