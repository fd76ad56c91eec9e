package dev.sluice.demo.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hazelcast.config.InMemoryYamlConfig;
import dev.sluice.docs.JavaExample;
import dev.sluice.docs.MarkdownBlock;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.rules.file.RulesFile;
import dev.sluice.service.LimitsFile;
import dev.sluice.servlet.FilterSettings;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * Every fenced block of README.md and docs/*.md (not docs/design/) is checked by its language tag: {@code json}
 * through the rules reader (or the limiter service's limits reader), {@code xml} as XML whose filter init-params are
 * all known and valid and whose Sluice dependencies are in the BOM, {@code yaml} through Hazelcast's YAML config
 * builder, {@code java} compiled against this module's test class path, {@code bash} and {@code console} (a
 * transcript: {@code $ } lines are commands) for syntax, commands that exist and repository paths and classes that
 * exist, {@code python} for syntax. {@code http} is the README quick start's answer, checked by
 * {@link QuickStartTest}; {@code text} is explicitly unchecked (output and log lines). The Spring Boot page's
 * {@code java} and {@code properties} blocks are checked by the Spring Boot module ({@code SpringBootDocsTest}, on its
 * class path, where Spring is). Any other tag, or none, fails.
 * Relative links must reach a file and, with an anchor, one of its headings.
 */
class DocumentationExamplesTest {

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final Set<String> TAGS = Set.of("json", "xml", "yaml", "java", "bash", "console", "python", "http",
            "text", "properties");

    /** The page whose Spring blocks the Spring Boot module checks, and their tags. */
    static final Path SPRING_BOOT_PAGE = ROOT.resolve("docs/spring-boot.md");
    private static final Set<String> SPRING_TAGS = Set.of("java", "properties");

    private static final List<MarkdownBlock> BLOCKS = MarkdownBlock.of(MarkdownBlock.pages(ROOT));

    /** A relative markdown link: its file (empty for the same page) and anchor. */
    private static final Pattern LINK = Pattern.compile("\\]\\((?!https?:)([^)#\\s]*)(?:#([^)\\s]+))?\\)");

    @Test
    void markdownBlocks_everyOne_hasATagThatSaysHowItIsChecked() {
        assertThat(BLOCKS).isNotEmpty();
        assertThat(BLOCKS).allSatisfy(block -> assertThat(block.tag()).as(block.where()).isIn(TAGS));
        assertThat(BLOCKS).filteredOn(block -> block.tag().equals("properties")).as("Spring Boot properties only on"
                + " the Spring Boot page, where SpringBootDocsTest checks them")
                .allSatisfy(block -> assertThat(block.file()).isEqualTo(SPRING_BOOT_PAGE));
    }

    @TestFactory
    Stream<DynamicTest> jsonBlocks_rulesOrLimitsFiles_readByTheirReader() {
        return blocks("json", block -> {
            JsonNode root = new ObjectMapper().readTree(block.text());
            String name = block.where();
            if (root.path("limits").isObject()) {
                assertThat(LimitsFile.parse(name, block.text()).entries()).isNotEmpty();
            } else {
                assertThat(RulesFile.parse(name, block.text()).rules()).isNotEmpty();
            }
        });
    }

    @TestFactory
    Stream<DynamicTest> xmlBlocks_filtersAndDependencies_knownInitParamsAndBomArtifacts() {
        Set<String> initParams = knownInitParams();
        Set<String> artifacts = sluiceArtifacts();
        return blocks("xml", block -> {
            Document xml = parse("<root>" + block.text().replaceFirst("^<\\?xml[^>]*>", "") + "</root>");
            NodeList filters = xml.getElementsByTagName("filter");
            for (int i = 0; i < filters.getLength(); i++) {
                Element filter = (Element) filters.item(i);
                Class.forName(text(filter, "filter-class"));
                Map<String, String> params = new HashMap<>();
                NodeList initParamElements = filter.getElementsByTagName("init-param");
                for (int j = 0; j < initParamElements.getLength(); j++) {
                    Element param = (Element) initParamElements.item(j);
                    params.put(text(param, "param-name"), text(param, "param-value"));
                }
                assertThat(initParams).as("init-params known to the filter and its store providers")
                        .containsAll(params.keySet());
                FilterSettings.fromInitParameters(params::get);
            }
            NodeList dependencies = xml.getElementsByTagName("dependency");
            for (int i = 0; i < dependencies.getLength(); i++) {
                Element dependency = (Element) dependencies.item(i);
                if (text(dependency, "groupId").equals("dev.sluice")) {
                    assertThat(artifacts).contains(text(dependency, "artifactId"));
                }
            }
            assertThat(filters.getLength() + dependencies.getLength()).as("a filter or a dependency").isPositive();
        });
    }

    @TestFactory
    Stream<DynamicTest> yamlBlocks_hazelcastConfig_loadedByHazelcast() {
        return blocks("yaml", block -> assertThat(new InMemoryYamlConfig(block.text()).getClusterName()).isNotBlank());
    }

    @TestFactory
    Stream<DynamicTest> javaBlocks_fragmentsOrTypes_compileAgainstTheTestClassPath() {
        return blocks("java", JavaExample::assertCompiles);
    }

    @TestFactory
    Stream<DynamicTest> shellBlocks_commandsAndTranscripts_commandsPathsAndClassesExist() {
        return Stream.concat(blocks("bash", block -> Shell.check(block, block.text())),
                blocks("console", block -> Shell.check(block, Shell.commandsOfTranscript(block.text()))));
    }

    @TestFactory
    Stream<DynamicTest> pythonBlocks_withPython3_parse() {
        return blocks("python", block -> {
            Assumptions.assumeTrue(Shell.exists("python3"), "no python3 on this machine");
            Path file = Files.createTempFile("sluice-doc-example", ".py");
            Files.writeString(file, block.text());
            assertThat(Shell.run(ROOT, "python3", "-c", "import ast,sys; ast.parse(open(sys.argv[1]).read())",
                    file.toString()).exitCode()).isZero();
        });
    }

    /** The README's quick start has one answer, checked by {@link QuickStartTest}; no other page shows one. */
    @Test
    void httpBlocks_anyPage_onlyTheReadmeQuickStartsAnswer() {
        assertThat(BLOCKS.stream().filter(block -> block.tag().equals("http")).map(MarkdownBlock::where))
                .singleElement().asString().startsWith("README.md:");
    }

    /**
     * Every relative link of the pages names a file that exists, and a heading of it when it has an anchor.
     */
    @TestFactory
    Stream<DynamicTest> relativeLinks_everyPage_reachAFileAndHeading() {
        return MarkdownBlock.pages(ROOT).stream().flatMap(page -> {
            Matcher link = LINK.matcher(withoutBlocks(page));
            List<DynamicTest> tests = new ArrayList<>();
            while (link.find()) {
                String target = link.group(1);
                String anchor = link.group(2);
                tests.add(DynamicTest.dynamicTest(ROOT.relativize(page) + " -> " + link.group(), () -> {
                    Path file = target.isEmpty() ? page : page.getParent().resolve(target).normalize();
                    assertThat(file).exists();
                    if (anchor != null) {
                        assertThat(headingAnchors(file)).as(ROOT.relativize(file) + " headings").contains(anchor);
                    }
                }));
            }
            return tests.stream();
        });
    }

    private static String withoutBlocks(Path page) {
        try {
            return Files.readString(page).replaceAll("(?ms)^ *```.*?^ *```", "");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
    private static Set<String> headingAnchors(Path page) {
        Set<String> anchors = new TreeSet<>();
        for (String line : withoutBlocks(page).split("\n")) {
            if (line.startsWith("#")) {
                anchors.add(line.replaceFirst("^#+\\s*", "").toLowerCase(Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
            }
        }
        return anchors;
    }

    interface Check {
        void run(MarkdownBlock block) throws Exception;
    }

    private static Stream<DynamicTest> blocks(String tag, Check check) {
        return BLOCKS.stream().filter(block -> block.tag().equals(tag))
                .filter(block -> !(block.file().equals(SPRING_BOOT_PAGE) && SPRING_TAGS.contains(tag)))
                .map(block -> DynamicTest.dynamicTest(block.where() + " " + tag, () -> check.run(block)));
    }

    /**
     * The filter's init-params (the names {@link FilterSettings#fromInitParameters} asks for) and the Hazelcast store
     * providers' (the {@code hazelcast-*} constants of the Hazelcast module's {@code InitParams}, wherever it lives).
     */
    static Set<String> knownInitParams() {
        Set<String> names = new TreeSet<>();
        FilterSettings.fromInitParameters(name -> {
            names.add(name);
            return null;
        });
        Set<String> hazelcast = new TreeSet<>();
        forEachClass(HazelcastCounterStore.class, "InitParams", type -> {
            for (Field field : type.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                    field.setAccessible(true);
                    String value = (String) get(field);
                    if (value.startsWith("hazelcast-") && !value.equals("hazelcast-client")) {
                        hazelcast.add(value);
                    }
                }
            }
        });
        assertThat(hazelcast).as("the Hazelcast module's init-params").contains("hazelcast-members");
        names.addAll(hazelcast);
        return names;
    }

    private static Object get(Field field) {
        try {
            return field.get(null);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Hands every class named {@code simpleName} in the jar or folder that holds {@code anchor} to {@code action}. */
    private static void forEachClass(Class<?> anchor, String simpleName, Consumer<Class<?>> action) {
        try {
            Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (Files.isDirectory(location)) {
                visit(location, simpleName, action);
            } else {
                try (FileSystem jar = FileSystems.newFileSystem(location)) {
                    visit(jar.getPath("/"), simpleName, action);
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot list the classes beside " + anchor.getName(), e);
        }
    }

    private static void visit(Path root, String simpleName, Consumer<Class<?>> action) throws Exception {
        List<String> names;
        try (Stream<Path> files = Files.walk(root)) {
            names = files.filter(file -> file.getFileName() != null
                            && file.getFileName().toString().equals(simpleName + ".class"))
                    .map(file -> root.relativize(file).toString().replace('/', '.').replaceAll("\\.class$", ""))
                    .toList();
        }
        for (String name : names) {
            action.accept(Class.forName(name));
        }
    }

    /** The artifacts the BOM manages. */
    private static Set<String> sluiceArtifacts() {
        try {
            Document bom = parse(Files.readString(ROOT.resolve("bom/pom.xml")));
            Set<String> artifacts = new TreeSet<>();
            NodeList ids = bom.getElementsByTagName("artifactId");
            for (int i = 0; i < ids.getLength(); i++) {
                artifacts.add(ids.item(i).getTextContent().trim());
            }
            return artifacts;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static Document parse(String xml) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return factory.newDocumentBuilder().parse(new InputSource(new StringReader(xml)));
        } catch (Exception e) {
            throw new AssertionError("not well-formed XML: " + e.getMessage(), e);
        }
    }

    private static String text(Element parent, String child) {
        NodeList found = parent.getElementsByTagName(child);
        assertThat(found.getLength()).as("<" + child + "> in <" + parent.getTagName() + ">").isPositive();
        return found.item(0).getTextContent().trim();
    }

    static boolean classExists(String name) {
        try {
            Class.forName(name, false, DocumentationExamplesTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Commands of shell blocks: syntax ({@code bash -n}), commands, repository paths and class names that exist. */
    static final class Shell {

        private static final Pattern SEPARATOR = Pattern.compile("\\$\\(|&&|\\|\\||[;|&(]|\\bdo\\b|\\bthen\\b");
        private static final Pattern QUOTED = Pattern.compile("'[^']*'|\"[^\"]*\"");
        private static final Set<String> IGNORED = Set.of("for", "done", "in", "if", "fi", "while", "else", "then",
                "do", ">", "$", "{", "}", ")");
        private static final Pattern CLASS_NAME =
                Pattern.compile("\\b((?:dev\\.sluice|com\\.hazelcast)(?:\\.[a-z]\\w*)*\\.[A-Z]\\w*)\\b");
        private static final Set<String> TOP = topLevel();

        /** The commands of a transcript: lines after {@code $ }, with their {@code > } continuation lines. */
        static String commandsOfTranscript(String transcript) {
            StringBuilder commands = new StringBuilder();
            boolean continuing = false;
            for (String line : transcript.split("\n")) {
                if (line.startsWith("$ ")) {
                    commands.append(line.substring(2)).append('\n');
                    continuing = line.endsWith("\\");
                } else if (line.startsWith("> ")) {
                    commands.append(line.substring(2)).append('\n');
                } else if (continuing) {
                    commands.append(line).append('\n');
                    continuing = line.endsWith("\\");
                }
            }
            assertThat(commands).as("a transcript has commands ($ lines)").isNotEmpty();
            return commands.toString();
        }

        static void check(MarkdownBlock block, String commands) throws Exception {
            Path script = Files.createTempFile("sluice-doc-example", ".sh");
            Files.writeString(script, commands);
            assertThat(run(ROOT, "bash", "-n", script.toString()).exitCode()).as(block.where() + " syntax").isZero();
            for (String command : commandNames(commands)) {
                assertThat(run(ROOT, "bash", "-c", "type -t -- \"$1\"", "type", command).exitCode())
                        .as(block.where() + ": command " + command).isZero();
            }
            for (String path : repositoryPaths(commands)) {
                checkPath(block, path);
            }
            Matcher className = CLASS_NAME.matcher(commands);
            while (className.find()) {
                String name = className.group(1);
                assertThat(classExists(name) || sourceExists(name)).as(block.where() + ": class " + name).isTrue();
            }
            Matcher module = Pattern.compile("-pl (\\S+)").matcher(commands);
            while (module.find()) {
                for (String name : module.group(1).split(",")) {
                    assertThat(ROOT.resolve(name).resolve("pom.xml")).as(block.where() + ": module").exists();
                }
            }
        }

        private static Set<String> commandNames(String commands) {
            Set<String> names = new LinkedHashSet<>();
            String unquoted = QUOTED.matcher(commands.replace("\\\n", " ")).replaceAll("'q'");
            for (String line : unquoted.split("\n")) {
                for (String part : SEPARATOR.split(line)) {
                    String[] words = part.trim().split("\\s+");
                    int i = 0;
                    while (i < words.length && (words[i].matches("\\w+=.*") || IGNORED.contains(words[i]))) {
                        i++;
                    }
                    if (i < words.length && !words[i].isEmpty() && !words[i].startsWith("'")
                            && !words[i].startsWith("\"") && !words[i].startsWith("-")
                            && !part.trim().startsWith("for ") && !words[i].startsWith("$")) {
                        names.add(words[i]);
                    }
                }
            }
            return names;
        }

        /** Words that name a file or folder of the repository (they start with one of its top-level entries). */
        private static Set<String> repositoryPaths(String commands) {
            Set<String> paths = new TreeSet<>();
            for (String word : commands.split("[\\s'\"=:]+")) {
                String path = word.replaceFirst("^\\./", "");
                int slash = path.indexOf('/');
                if (slash > 0 && TOP.contains(path.substring(0, slash)) || word.startsWith("./")) {
                    paths.add(path);
                }
            }
            return paths;
        }

        /**
         * A source path must exist. A build output ({@code module/target/...}) must be of a module; a Sluice jar there
         * must be the name the module's build gives it; other outputs (copied libraries, the demo's lib folder) are
         * made by the commands the page gives beside them.
         */
        private static void checkPath(MarkdownBlock block, String path) throws IOException {
            int target = path.indexOf("/target/");
            if (target < 0) {
                assertThat(ROOT.resolve(path.replace("/*", ""))).as(block.where() + ": path").exists();
                return;
            }
            Path module = ROOT.resolve(path.substring(0, target));
            assertThat(module.resolve("pom.xml")).as(block.where() + ": module of " + path).exists();
            String output = path.substring(target + "/target/".length());
            if (output.startsWith("sluice-") && output.endsWith(".jar")) {
                Document pom = parse(Files.readString(module.resolve("pom.xml")));
                Element project = pom.getDocumentElement();
                NodeList finalName = project.getElementsByTagName("finalName");
                String version = ((Element) project.getElementsByTagName("parent").item(0))
                        .getElementsByTagName("version").item(0).getTextContent().trim();
                String jar = finalName.getLength() > 0 ? finalName.item(0).getTextContent().trim() + ".jar"
                        : directChild(project, "artifactId") + "-" + version + ".jar";
                assertThat(output).as(block.where() + ": the jar the build of " + module.getFileName() + " produces")
                        .isEqualTo(jar);
            }
        }

        private static String directChild(Element parent, String name) {
            NodeList children = parent.getChildNodes();
            for (int i = 0; i < children.getLength(); i++) {
                if (children.item(i) instanceof Element child && child.getTagName().equals(name)) {
                    return child.getTextContent().trim();
                }
            }
            throw new AssertionError("no <" + name + ">");
        }

        private static boolean sourceExists(String className) throws IOException {
            String file = className.replace('.', '/') + ".java";
            try (Stream<Path> modules = Files.list(ROOT)) {
                return modules.anyMatch(module -> Files.exists(module.resolve("src/main/java").resolve(file)));
            }
        }

        private static Set<String> topLevel() {
            try (Stream<Path> entries = Files.list(ROOT)) {
                Set<String> names = new TreeSet<>();
                entries.map(entry -> entry.getFileName().toString()).filter(name -> !name.startsWith("."))
                        .forEach(names::add);
                return names;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        static boolean exists(String command) throws Exception {
            return run(ROOT, "bash", "-c", "type -t -- \"$1\"", "type", command).exitCode() == 0;
        }

        record Result(int exitCode, String output) {
        }

        static Result run(Path directory, String... command) throws Exception {
            Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Result(process.waitFor(), output);
        }
    }
}
