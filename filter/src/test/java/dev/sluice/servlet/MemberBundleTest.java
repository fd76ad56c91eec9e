package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.hazelcast.ClusterSupport;
import dev.sluice.store.StoreHealth;
import jakarta.servlet.DispatcherType;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The own-cluster steps (docs/cluster.md, "Starting a member") followed as written, on the member bundle the build made
 * ({@code hazelcast/target/sluice-member}, so this runs in the integration-test phase, after {@code package}): a member
 * started by the bundle's script (a copy of the bundle, its member file on a free port instead of 5701), and two
 * applications, each the filter over real Jetty with the steps' {@code web.xml} init-params, sharing one limit.
 */
@Tag("cluster")
class MemberBundleTest {

    private static final Path ROOT = Path.of("..");
    private static final Path PAGE = ROOT.resolve("docs/cluster.md");
    private static final String SECTION = "### Starting a member";
    private static final Path BUNDLE = ROOT.resolve("hazelcast/target/sluice-member");
    private static final String DOCUMENTED_PORT = "5701";
    private static final Duration START_WAIT = Duration.ofSeconds(120);
    private static final int LIMIT = 5;
    private static final String RULES = """
            {"rules": [{"id": "per-ip", "match": {"paths": ["/api/**"]}, "key": {"type": "ip"},
                        "limits": [{"permits": %d, "period": "1h"}]}]}
            """.formatted(LIMIT);

    @TempDir
    Path dir;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private Process member;

    @AfterEach
    void stop() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        if (member != null) {
            member.descendants().forEach(ProcessHandle::destroy);
            member.destroy();
            member.onExit().get();
        }
    }

    @Test
    void ownClusterSteps_followedAsWritten_twoApplicationsShareOneLimit() throws Exception {
        String steps = section(Files.readString(PAGE));
        List<String> blocks = blocks(steps);
        assertThat(blocks.get(0)).as("step 1, the build").isEqualTo("mvn -B -DskipTests -pl hazelcast -am package");
        assertThat(Files.isExecutable(BUNDLE.resolve("bin/start-member.sh")))
                .as("the bundle, made by step 1 (mvn package) before this test").isTrue();
        assertThat(layout(blocks.get(1))).as("step 1, the bundle's layout")
                .containsExactly("bin/start-member.sh", "config/hazelcast-member.yaml", "lib/");
        try (Stream<Path> jars = Files.list(BUNDLE.resolve("lib"))) {
            assertThat(jars.map(jar -> jar.getFileName().toString().replaceAll("-\\d.*", "")))
                    .containsExactlyInAnyOrder("hazelcast", "sluice-core", "sluice-hazelcast");
        }

        int port = ClusterSupport.freePort();
        Path copy = copyBundle(String.valueOf(port));
        String start = blocks.get(2);
        assertThat(start).as("step 2, the start").isEqualTo("bash hazelcast/target/sluice-member/bin/start-member.sh");
        Path log = dir.resolve("member.log");
        member = new ProcessBuilder(start.replace("hazelcast/target/sluice-member", copy.toString()).split(" "))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        String started = startedLine(steps).replace(DOCUMENTED_PORT, String.valueOf(port));
        ClusterSupport.await(() -> read(log).contains(started), START_WAIT, "the member to log: " + started);

        Map<String, String> initParams = initParams(blocks.get(3), String.valueOf(port));
        assertThat(initParams).containsEntry("store", "hazelcast-client")
                .containsEntry("hazelcast-members", "127.0.0.1:" + port);
        List<ServletContextHandler> applications = List.of(application(initParams), application(initParams));
        List<JettyServer> servers = new ArrayList<>();
        for (ServletContextHandler application : applications) {
            servers.add(JettyServer.start(20, application));
            resources.add(servers.get(servers.size() - 1));
        }

        assertThat(admitted(servers, 10)).as("of 20 requests across both applications, limit " + LIMIT)
                .isEqualTo(LIMIT);
        for (ServletContextHandler application : applications) {
            StoreHealth health = health(application);
            assertThat(health.mode()).isEqualTo("hazelcast-client");
            assertThat(health.membersSeen()).isEqualTo(1);
            assertThat(health.cluster().incompatibleMembersSeen()).isZero();
        }
    }

    /** The page's own-cluster steps: from their heading to the next one of the same level. */
    private static String section(String page) {
        int start = page.indexOf(SECTION);
        assertThat(start).as(PAGE + " has the section " + SECTION).isNotNegative();
        int end = page.indexOf("\n### ", start + SECTION.length());
        return end < 0 ? page.substring(start) : page.substring(start, end);
    }

    /** The fenced blocks of {@code markdown}, in order, without their fences and indentation. */
    private static List<String> blocks(String markdown) {
        List<String> blocks = new ArrayList<>();
        Matcher block = Pattern.compile("(?m)^( *)```\\w*\\n(.*?)^\\1```", Pattern.DOTALL).matcher(markdown);
        while (block.find()) {
            blocks.add(block.group(2).replaceAll("(?m)^" + block.group(1), "").strip());
        }
        return blocks;
    }

    /** The first word of each line of the layout block. */
    private static List<String> layout(String block) {
        return block.lines().map(line -> line.split("\\s+")[0]).toList();
    }

    /** The log line the steps say a started member writes. */
    private static String startedLine(String steps) {
        Matcher line = Pattern.compile("It is up when it logs `([^`]+)`").matcher(steps);
        assertThat(line.find()).as("step 2 names the started line").isTrue();
        return line.group(1);
    }

    /**
     * The init-params of the steps' {@code web.xml} filter, the documented port replaced by {@code port}; the filter
     * is async-supported and mapped for the {@code REQUEST} and {@code ASYNC} dispatches, as the README's is.
     */
    private static Map<String, String> initParams(String xml, String port) throws Exception {
        Element webXml = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(
                ("<web-app>" + xml + "</web-app>").getBytes(StandardCharsets.UTF_8))).getDocumentElement();
        Element filter = (Element) webXml.getElementsByTagName("filter").item(0);
        assertThat(filter.getElementsByTagName("filter-class").item(0).getTextContent())
                .isEqualTo(RateLimitFilter.class.getName());
        assertThat(filter.getElementsByTagName("async-supported").item(0).getTextContent()).isEqualTo("true");
        NodeList dispatchers = ((Element) webXml.getElementsByTagName("filter-mapping").item(0))
                .getElementsByTagName("dispatcher");
        assertThat(List.of(dispatchers.item(0).getTextContent(), dispatchers.item(1).getTextContent()))
                .containsExactly("REQUEST", "ASYNC");
        Map<String, String> params = new LinkedHashMap<>();
        NodeList list = filter.getElementsByTagName("init-param");
        for (int i = 0; i < list.getLength(); i++) {
            Element param = (Element) list.item(i);
            params.put(param.getElementsByTagName("param-name").item(0).getTextContent(),
                    param.getElementsByTagName("param-value").item(0).getTextContent()
                            .replace(DOCUMENTED_PORT, port));
        }
        return params;
    }

    /** A copy of the bundle whose member file listens on {@code port} instead of the documented one. */
    private Path copyBundle(String port) throws IOException {
        Path copy = dir.resolve("sluice-member");
        try (Stream<Path> files = Files.walk(BUNDLE)) {
            for (Path file : files.toList()) {
                Path target = copy.resolve(BUNDLE.relativize(file).toString());
                Files.copy(file, target, StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
        Path config = copy.resolve("config/hazelcast-member.yaml");
        Files.writeString(config, Files.readString(config).replace(DOCUMENTED_PORT, port));
        return copy;
    }

    /** An application: the filter with {@code initParams}, its rules where the init-param {@code rules} says. */
    private ServletContextHandler application(Map<String, String> initParams) throws IOException {
        Path webapp = Files.createTempDirectory(dir, "webapp");
        Path rules = webapp.resolve(initParams.get("rules").substring(1));
        Files.createDirectories(rules.getParent());
        Files.writeString(rules, RULES);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.setBaseResourceAsPath(webapp);
        FilterHolder filter = new FilterHolder(RateLimitFilter.class);
        initParams.forEach(filter::setInitParameter);
        context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new EchoServlet()), "/*");
        return context;
    }

    /** How many of {@code each} requests to every server, sent from one thread per server at once, got 200. */
    private static int admitted(List<JettyServer> servers, int each) throws Exception {
        ExecutorService senders = Executors.newFixedThreadPool(servers.size());
        try {
            List<Future<Integer>> admitted = new ArrayList<>();
            for (JettyServer server : servers) {
                admitted.add(senders.submit(() -> {
                    int granted = 0;
                    for (int i = 0; i < each; i++) {
                        int status = server.get("/api/shared").statusCode();
                        assertThat(status).isIn(200, 429);
                        granted += status == 200 ? 1 : 0;
                    }
                    return granted;
                }));
            }
            int total = 0;
            for (Future<Integer> granted : admitted) {
                total += granted.get();
            }
            return total;
        } finally {
            senders.shutdownNow();
        }
    }

    @SuppressWarnings("unchecked")
    private static StoreHealth health(ServletContextHandler application) {
        return ((Supplier<StoreHealth>) application.getServletContext()
                .getAttribute(RateLimitFilter.HEALTH_ATTRIBUTE)).get();
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }
}
