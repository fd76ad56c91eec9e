package dev.sluice.console;

import dev.sluice.PackageCycleContract;

/** The packages of sluice-console depend on each other without a cycle. */
class PackageDependenciesTest extends PackageCycleContract {

    @Override
    protected Class<?> anyClassOfTheModule() {
        return ConsoleFeature.class;
    }
}
