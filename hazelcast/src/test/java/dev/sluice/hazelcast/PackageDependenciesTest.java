package dev.sluice.hazelcast;

import dev.sluice.PackageCycleContract;

/** The packages of sluice-hazelcast depend on each other without a cycle. */
class PackageDependenciesTest extends PackageCycleContract {

    @Override
    protected Class<?> anyClassOfTheModule() {
        return HazelcastCounterStore.class;
    }
}
