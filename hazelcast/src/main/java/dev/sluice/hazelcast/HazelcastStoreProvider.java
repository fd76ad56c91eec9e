package dev.sluice.hazelcast;

import dev.sluice.store.CounterStore;
import dev.sluice.store.CounterStoreProvider;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/** What the two Hazelcast store providers share: a name, the store they open, and the setting names they take. */
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

    /**
     * The init-params {@link InitParams} reads (the member's, the client's and the store's); an adapter refuses any
     * other name beyond its own. The client refuses the member's own ({@code hazelcast-port},
     * {@code hazelcast-interface}) itself, with a message saying they belong to a member.
     */
    @Override
    public final Optional<Set<String>> settingNames() {
        return Optional.of(InitParams.SETTINGS);
    }
}
