package dev.sluice.benchmarks;

/** The keys a benchmark spreads its requests over, and a per-thread cursor through them. */
final class Keys {

    private Keys() {
    }

    static String[] named(int count) {
        String[] keys = new String[count];
        for (int i = 0; i < count; i++) {
            keys[i] = "client-" + i;
        }
        return keys;
    }
}
