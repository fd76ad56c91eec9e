package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.DependencyGraph;
import org.junit.jupiter.api.Test;

/**
 * The classes of sluice-hazelcast form no import loop, read from the compiled classes by {@code jdeps}. The one loop
 * Hazelcast's design asks for is left out: the serializer hook (a class whose name ends in {@code SerializerHook})
 * creates every wire class, and each wire class names the hook for its factory id, so the hook's edges are removed
 * before the search; any other strongly connected component of more than one class fails, naming its classes. The
 * same holds for the packages (the hook creates the public merge policy, the one edge from internal to public).
 */
class ClassDependenciesTest {

    private static final DependencyGraph WITHOUT_THE_HOOK = DependencyGraph.classesOf(HazelcastCounterStore.class)
            .without(name -> name.endsWith("SerializerHook"));

    @Test
    void classes_withoutTheSerializerHook_formNoCycle() {
        assertThat(WITHOUT_THE_HOOK.cycles()).as("class cycles, the serializer hook's edges removed").isEmpty();
    }

    /** The pipeline points one way: public -> calls and cluster -> wire -> core (the hook's edges again removed). */
    @Test
    void packages_withoutTheSerializerHook_formNoCycle() {
        assertThat(WITHOUT_THE_HOOK.packages().cycles()).as("package cycles, the serializer hook's edges removed")
                .isEmpty();
    }
}
