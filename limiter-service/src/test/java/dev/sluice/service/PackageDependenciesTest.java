package dev.sluice.service;

import dev.sluice.PackageCycleContract;

/** The packages of sluice-limiter-service (the service and its client) depend on each other without a cycle. */
class PackageDependenciesTest extends PackageCycleContract {

    @Override
    protected Class<?> anyClassOfTheModule() {
        return LimiterService.class;
    }
}
