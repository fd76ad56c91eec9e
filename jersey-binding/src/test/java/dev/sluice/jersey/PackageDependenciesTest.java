package dev.sluice.jersey;

import dev.sluice.PackageCycleContract;

/** The packages of sluice-jersey depend on each other without a cycle. */
class PackageDependenciesTest extends PackageCycleContract {

    @Override
    protected Class<?> anyClassOfTheModule() {
        return RateLimitFeature.class;
    }
}
