package dev.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Every published module's packages depend on each other without a cycle, read from its compiled classes
 * ({@link DependencyGraph}). A module's test extends this and names one of its classes.
 */
public abstract class PackageCycleContract {

    /** Any class of the module under test. */
    protected abstract Class<?> anyClassOfTheModule();

    @Test
    void packages_ofTheModule_formNoCycle() {
        assertThat(DependencyGraph.packagesOf(anyClassOfTheModule()).cycles()).as("package cycles").isEmpty();
    }
}
