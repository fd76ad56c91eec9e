package dev.sluice.servlet;

import dev.sluice.PackageCycleContract;

/** The packages of sluice-filter depend on each other without a cycle. */
class PackageDependenciesTest extends PackageCycleContract {

    @Override
    protected Class<?> anyClassOfTheModule() {
        return RateLimitFilter.class;
    }
}
