package dev.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.NullMarked;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shape of sluice-core, read from its compiled classes by the JDK's {@code jdeps}: the packages depend on each
 * other without cycles, and nothing in core reaches the Servlet API, JAX-RS, Jersey or Hazelcast, so a user of the
 * local {@code RateLimiter} needs none of them.
 */
class PackageDependenciesTest {

    private static final Pattern EDGE = Pattern.compile("^\\s+(\\S+)\\s+->\\s+(\\S+)\\s+\\S+\\s*$");

    /** Package to the packages it uses, own packages and third-party ones alike, never itself. */
    private static Map<String, Set<String>> uses;

    @BeforeAll
    static void readCompiledClasses() throws URISyntaxException {
        Path classes = Path.of(Limit.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        StringWriter out = new StringWriter();
        // The classes are a module (module-info): jdeps resolves what it requires on the module path.
        String modulePath = String.join(File.pathSeparator, jarOf(JsonFactory.class), jarOf(NullMarked.class),
                jarOf(MeterRegistry.class));
        int exit = jdeps.run(new PrintWriter(out), new PrintWriter(out), "--module-path", modulePath,
                "--multi-release", "17", "-verbose:package", "-filter:none", classes.toString());
        assertThat(exit).as("jdeps output:\n%s", out).isZero();
        uses = new TreeMap<>();
        for (String line : out.toString().split("\n")) {
            Matcher edge = EDGE.matcher(line);
            if (edge.matches() && !edge.group(1).equals(edge.group(2))) {
                uses.computeIfAbsent(edge.group(1), p -> new TreeSet<>()).add(edge.group(2));
            }
        }
        assertThat(uses).as("jdeps output:\n%s", out).containsKeys("dev.sluice", "dev.sluice.algorithm",
                "dev.sluice.store", "dev.sluice.rules");
    }

    private static String jarOf(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    @Test
    void corePackages_formNoCycle() {
        List<String> cycle = new ArrayList<>();
        Set<String> done = new HashSet<>();
        for (String start : uses.keySet()) {
            if (findCycle(start, new ArrayList<>(), done, cycle)) {
                break;
            }
        }
        assertThat(cycle).as("a package cycle").isEmpty();
    }

    @Test
    void core_usesNoServletJaxRsJerseyOrHazelcast() {
        List<String> adapterTypes = List.of("jakarta.servlet", "jakarta.ws.rs", "org.glassfish", "com.hazelcast");
        uses.forEach((from, targets) -> assertThat(targets)
                .as("what %s uses", from)
                .noneMatch(target -> adapterTypes.stream().anyMatch(target::startsWith)));
    }

    /** Depth-first search over Sluice's own packages; fills {@code cycle} with the first cycle found. */
    private static boolean findCycle(String pkg, List<String> path, Set<String> done, List<String> cycle) {
        int seen = path.indexOf(pkg);
        if (seen >= 0) {
            cycle.addAll(path.subList(seen, path.size()));
            cycle.add(pkg);
            return true;
        }
        if (!done.add(pkg)) {
            return false;
        }
        path.add(pkg);
        for (String next : uses.getOrDefault(pkg, Set.of())) {
            if (next.startsWith("dev.sluice") && findCycle(next, path, done, cycle)) {
                return true;
            }
        }
        path.remove(path.size() - 1);
        return false;
    }
}
