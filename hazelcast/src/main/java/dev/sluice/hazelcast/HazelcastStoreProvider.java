package dev.sluice.hazelcast;

import dev.sluice.store.CounterStore;
import dev.sluice.store.CounterStoreProvider;
import java.util.function.Function;

/** What the two Hazelcast store providers share: a name, and the store they open from the adapter's context. */
abstract class HazelcastStoreProvider implements CounterStoreProvider {

    private final String name;
    private final Function<Context, CounterStore> opener;

    HazelcastStoreProvider(String name, Function<Context, CounterStore> opener) {
        this.name = name;
        this.opener = opener;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final CounterStore open(Context context) {
        return opener.apply(context);
    }
}
