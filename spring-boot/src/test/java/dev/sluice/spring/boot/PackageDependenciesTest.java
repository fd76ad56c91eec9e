package dev.sluice.spring.boot;

import dev.sluice.PackageCycleContract;

/** The packages of sluice-spring-boot (auto-configuration, actuator, console) depend on each other without a cycle. */
class PackageDependenciesTest extends PackageCycleContract {

    @Override
    protected Class<?> anyClassOfTheModule() {
        return SluiceAutoConfiguration.class;
    }
}
