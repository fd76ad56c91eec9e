package dev.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shape of sluice-core, read from its compiled classes by the JDK's {@code jdeps}: the packages depend on each
 * other without cycles ({@link PackageCycleContract}), and nothing in core reaches the Servlet API, JAX-RS, Jersey or
 * Hazelcast, so a user of the local {@code RateLimiter} needs none of them.
 */
class PackageDependenciesTest extends PackageCycleContract {

    @Override
    protected Class<?> anyClassOfTheModule() {
        return Limit.class;
    }

    @Test
    void core_readsItsMainPackages() {
        assertThat(DependencyGraph.packagesOf(Limit.class).uses()).containsKeys("dev.sluice", "dev.sluice.algorithm",
                "dev.sluice.store", "dev.sluice.rules");
    }

    @Test
    void core_usesNoServletJaxRsJerseyOrHazelcast() {
        List<String> adapterTypes = List.of("jakarta.servlet", "jakarta.ws.rs", "org.glassfish", "com.hazelcast");
        DependencyGraph.packagesOf(Limit.class).uses().forEach((from, targets) -> assertThat(targets)
                .as("what %s uses", from)
                .noneMatch(target -> adapterTypes.stream().anyMatch(target::startsWith)));
    }
}
