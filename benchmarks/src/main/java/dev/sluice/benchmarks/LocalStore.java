package dev.sluice.benchmarks;

import dev.sluice.store.LocalCounterStore;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** A local store shared by a benchmark's threads. */
@State(Scope.Benchmark)
public class LocalStore {
    final LocalCounterStore store = new LocalCounterStore();

    @TearDown
    public void stop() {
        store.close();
    }
}
