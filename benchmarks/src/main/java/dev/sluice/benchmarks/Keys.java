package dev.sluice.benchmarks;

import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The keys a benchmark spreads its requests over, and a per-thread cursor through them. Public only because JMH's
 * generated code, in another package, extends {@link Cursor}.
 */
public final class Keys {

    private Keys() {
    }

    static String[] named(int count) {
        String[] keys = new String[count];
        for (int i = 0; i < count; i++) {
            keys[i] = "client-" + i;
        }
        return keys;
    }

    /** Each thread walks the keys on its own: JMH state, one per thread, so not shared. */
    @State(Scope.Thread)
    public static class Cursor {
        private int position;

        /** The next index below {@code bound}, wrapping around to 0. */
        int next(int bound) {
            int current = position;
            position = current + 1 == bound ? 0 : current + 1;
            return current;
        }
    }
}
