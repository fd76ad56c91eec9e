package dev.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a module's compiled classes use, read by the JDK's {@code jdeps}: package to packages, or class to classes
 * (a nested class folded into its top-level class, as one unit of code). Third-party targets are kept, so a test can
 * also check what a module reaches. {@link #cycles()} gives the strongly connected components of more than one of
 * Sluice's own nodes: each is an import loop. Never modified once read; shared by the module tests through core's
 * test-jar.
 */
public final class DependencyGraph {

    private static final Pattern EDGE = Pattern.compile("^\\s+(\\S+)\\s+->\\s+(\\S+)\\s+.*$");

    private final Map<String, Set<String>> uses;

    private DependencyGraph(Map<String, Set<String>> uses) {
        this.uses = uses;
    }

    /** The packages of the module (jar or class folder) that holds {@code anyClass}. */
    public static DependencyGraph packagesOf(Class<?> anyClass) {
        return read(anyClass, "-verbose:package", UnaryOperator.identity());
    }

    /** The top-level classes of the module that holds {@code anyClass}. */
    public static DependencyGraph classesOf(Class<?> anyClass) {
        return read(anyClass, "-verbose:class", name -> name.contains("$") ? name.substring(0, name.indexOf('$'))
                : name);
    }

    private static DependencyGraph read(Class<?> anyClass, String verbose, UnaryOperator<String> node) {
        Path classes;
        try {
            classes = Path.of(anyClass.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        StringWriter out = new StringWriter();
        List<String> arguments = new ArrayList<>(List.of(verbose, "-filter:none"));
        if (Files.exists(classes.resolve("module-info.class"))) {
            // A named module: jdeps resolves what it requires on the module path the tests run with.
            arguments.addAll(List.of("--multi-release", "17", "--module-path", modulePathBesides(classes)));
        }
        arguments.add(classes.toString());
        int exit = jdeps.run(new PrintWriter(out), new PrintWriter(out), arguments.toArray(String[]::new));
        assertThat(exit).as("jdeps output:\n%s", out).isZero();
        Map<String, Set<String>> uses = new TreeMap<>();
        for (String line : out.toString().split("\n")) {
            Matcher edge = EDGE.matcher(line);
            if (edge.matches()) {
                String from = node.apply(edge.group(1));
                String to = node.apply(edge.group(2));
                if (!from.equals(to)) {
                    uses.computeIfAbsent(from, n -> new TreeSet<>()).add(to);
                }
            }
        }
        assertThat(uses).as("jdeps output:\n%s", out).isNotEmpty();
        return new DependencyGraph(uses);
    }

    /** The test run's module path and class path, less {@code classes} itself. */
    private static String modulePathBesides(Path classes) {
        return Stream.of(System.getProperty("jdk.module.path", ""), System.getProperty("java.class.path", ""))
                .flatMap(path -> Arrays.stream(path.split(File.pathSeparator)))
                .filter(entry -> !entry.isEmpty() && Files.exists(Path.of(entry)) && !Path.of(entry).equals(classes))
                .distinct()
                .collect(Collectors.joining(File.pathSeparator));
    }

    /** Node to the nodes it uses, never itself. */
    public Map<String, Set<String>> uses() {
        return uses;
    }

    /** This class graph folded into packages: a package uses what any of its classes uses. */
    public DependencyGraph packages() {
        Map<String, Set<String>> folded = new TreeMap<>();
        uses.forEach((from, targets) -> {
            String pkg = packageOf(from);
            Set<String> to = folded.computeIfAbsent(pkg, n -> new TreeSet<>());
            targets.stream().map(DependencyGraph::packageOf).filter(target -> !target.equals(pkg)).forEach(to::add);
        });
        return new DependencyGraph(folded);
    }

    private static String packageOf(String className) {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? "" : className.substring(0, dot);
    }

    /** This graph without the nodes {@code removed} accepts, nor any edge to or from them. */
    public DependencyGraph without(Predicate<String> removed) {
        Map<String, Set<String>> kept = new TreeMap<>();
        uses.forEach((from, targets) -> {
            if (!removed.test(from)) {
                Set<String> to = new TreeSet<>(targets);
                to.removeIf(removed);
                kept.put(from, to);
            }
        });
        return new DependencyGraph(kept);
    }

    /** The strongly connected components of more than one {@code dev.sluice} node, each sorted (Tarjan's). */
    public List<Set<String>> cycles() {
        Tarjan search = new Tarjan();
        for (String start : uses.keySet()) {
            if (start.startsWith("dev.sluice") && !search.index.containsKey(start)) {
                search.visit(start);
            }
        }
        return search.components;
    }

    private final class Tarjan {
        final Map<String, Integer> index = new HashMap<>();
        final Map<String, Integer> lowLink = new HashMap<>();
        final Deque<String> stack = new ArrayDeque<>();
        final Set<String> onStack = new TreeSet<>();
        final List<Set<String>> components = new ArrayList<>();

        void visit(String node) {
            index.put(node, index.size());
            lowLink.put(node, index.get(node));
            stack.push(node);
            onStack.add(node);
            for (String next : uses.getOrDefault(node, Set.of())) {
                if (!next.startsWith("dev.sluice")) {
                    continue;
                }
                if (!index.containsKey(next)) {
                    visit(next);
                    lowLink.put(node, Math.min(lowLink.get(node), lowLink.get(next)));
                } else if (onStack.contains(next)) {
                    lowLink.put(node, Math.min(lowLink.get(node), index.get(next)));
                }
            }
            if (lowLink.get(node).equals(index.get(node))) {
                Set<String> component = new TreeSet<>();
                String member;
                do {
                    member = stack.pop();
                    onStack.remove(member);
                    component.add(member);
                } while (!member.equals(node));
                if (component.size() > 1) {
                    components.add(component);
                }
            }
        }
    }
}
