package dev.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The shape of sluice-core, read from its compiled classes by the JDK's {@code jdeps}: the packages depend on each
 * other without cycles ({@link PackageCycleContract}), each layer only on those below it (the engine on the rules and
 * the stores, never the reverse; the stores on no rule; the rule model and the file reader on no engine), and nothing
 * in core reaches the Servlet API, JAX-RS, Jersey or Hazelcast, so a user of the local {@code RateLimiter} needs none
 * of them.
 */
class PackageDependenciesTest extends PackageCycleContract {

    private static final Map<String, Set<String>> USES = DependencyGraph.packagesOf(Limit.class).uses();

    @Override
    protected Class<?> anyClassOfTheModule() {
        return Limit.class;
    }

    @Test
    void core_readsItsMainPackages() {
        assertThat(USES).containsKeys("dev.sluice", "dev.sluice.algorithm", "dev.sluice.store", "dev.sluice.rules",
                "dev.sluice.rules.file", "dev.sluice.rules.match", "dev.sluice.engine");
    }

    @Test
    void core_usesNoServletJaxRsJerseyOrHazelcast() {
        List<String> adapterTypes = List.of("jakarta.servlet", "jakarta.ws.rs", "org.glassfish", "com.hazelcast");
        USES.forEach((from, targets) -> assertThat(targets)
                .as("what %s uses", from)
                .noneMatch(target -> adapterTypes.stream().anyMatch(target::startsWith)));
    }

    @Test
    void store_usesNoRuleNorEngine() {
        assertThat(USES.get("dev.sluice.store")).as("what the stores use")
                .noneMatch(target -> target.startsWith("dev.sluice.rules") || target.startsWith("dev.sluice.engine"));
    }

    @Test
    void rulesAndFileReader_useNoEngine() {
        for (String layer : List.of("dev.sluice.rules", "dev.sluice.rules.file", "dev.sluice.rules.match")) {
            assertThat(USES.get(layer)).as("what %s uses", layer)
                    .doesNotContain("dev.sluice.engine", "dev.sluice.limiter");
        }
    }

    @Test
    void requestMatching_usesNoRuleModel() {
        assertThat(USES.get("dev.sluice.rules.match")).as("what request matching uses")
                .doesNotContain("dev.sluice.rules", "dev.sluice.rules.file");
    }

    @Test
    void algorithms_useNothingAbove() {
        assertThat(USES.get("dev.sluice.algorithm")).as("what the algorithms use")
                .allMatch(target -> !target.startsWith("dev.sluice.") || target.equals("dev.sluice")
                        || target.startsWith("dev.sluice.internal"));
    }
}
