package dev.sluice.benchmarks;

import dev.sluice.console.Console;
import dev.sluice.console.ConsoleRecorder;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.servlet.FilterSettings;
import dev.sluice.servlet.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The servlet filter's cost over HTTP: Jetty 12 serving a two-byte answer at {@code /api/*}, with no filter
 * ({@code none}), behind a filter that only passes the request on ({@code noop}: Jetty's own cost of a filter), or
 * behind Sluice with one per-client-IP token bucket (never exhausted) counted in the local store ({@code local}) or in
 * an embedded Hazelcast member ({@code hazelcast}; {@code hazelcast-leased}: the rule leased, the store leasing,
 * README Leasing; {@code hazelcast-synced}: the rule synchronised, with the automatic budget; any of the filtered
 * modes followed by {@code -console}, such as {@code local-console} or
 * {@code hazelcast-console}: the same, the filter's decisions recorded and published every second by the console),
 * which joins the member at {@code MEMBER_PORT} when given (a process of its own,
 * {@link BenchmarkCluster#main}) and starts serving once the two see each other. The client is named by
 * {@code X-Forwarded-For} from the trusted proxy 127.0.0.1, so one load generator can be many clients
 * ({@link #clientAddress}). {@link HttpOverheadRun} starts and loads it.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.HttpOverheadServer
 * none|noop|local|hazelcast|hazelcast-leased|hazelcast-synced[-console] PORT
 * [MEMBER_PORT]}; prints
 * {@value #READY} and the address once serving; stops when killed.
 */
public final class HttpOverheadServer {

    /** The rules of the filtered servers, and of {@link FilterBenchmark}. */
    static final String RULES = """
            {"clientAddress": {"trustedProxies": ["127.0.0.1"], "header": "X-Forwarded-For"},
             "rules": [{"id": "per-ip", "match": {"paths": ["/api/**"]}, "key": {"type": "ip"},
                        "limits": [{"permits": 1000000000, "period": "1s"}]}]}
            """;

    /** {@link #RULES} with the rule leased. */
    static final String LEASED_RULES = changed(RULES, RULES.replace("\"key\": {\"type\": \"ip\"},",
            "\"key\": {\"type\": \"ip\"}, \"lease\": true,"));

    /** {@link #RULES} synchronised. */
    static final String SYNCED_RULES = changed(RULES, RULES.replace("\"key\": {\"type\": \"ip\"},",
            "\"key\": {\"type\": \"ip\"}, \"sync\": \"synchronised\","));

    /** The name of the Hazelcast cluster of the {@code hazelcast} server and the member it joins. */
    static final String CLUSTER_NAME = "sluice-http-bench";

    /** The end of a mode whose filter's decisions the console records and publishes. */
    static final String CONSOLE_SUFFIX = "-console";

    /** The start of the line printed once the server answers. */
    static final String READY = "serving";

    private HttpOverheadServer() {
    }

    /** {@code edited}, which must differ from {@code original}: an edit that no longer applies fails at once. */
    private static String changed(String original, String edited) {
        if (edited.equals(original)) {
            throw new IllegalStateException("the leased rules are the unleased ones: RULES changed, mend LEASED_RULES");
        }
        return edited;
    }

    /** The address of client {@code index} (0 to 65,535), as a trusted proxy forwards it. */
    static String clientAddress(int index) {
        return "10.1." + (index >> 8) + "." + (index & 0xff);
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0].toLowerCase(Locale.ROOT);
        int port = Integer.parseInt(args[1]);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.addServlet(new ServletHolder(new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                response.setContentType("text/plain");
                response.getOutputStream().write('o');
                response.getOutputStream().write('k');
            }
        }), "/api/*");
        RateLimitFilter filter = null;
        // "<mode>-console": the same filter, its decisions recorded and published by the console every second.
        boolean console = mode.endsWith(CONSOLE_SUFFIX);
        ConsoleRecorder recorder = new ConsoleRecorder();
        String storeMode = console ? mode.substring(0, mode.length() - CONSOLE_SUFFIX.length()) : mode;
        if (mode.equals("noop")) {
            context.addFilter(new FilterHolder((request, response, chain) -> chain.doFilter(request, response)), "/*",
                    EnumSet.of(DispatcherType.REQUEST));
        } else if (!mode.equals("none")) {
            boolean leased = storeMode.equals("hazelcast-leased");
            Path rules = Files.writeString(Files.createTempFile("sluice-http-bench", ".json"),
                    leased ? LEASED_RULES : storeMode.equals("hazelcast-synced") ? SYNCED_RULES : RULES);
            rules.toFile().deleteOnExit();
            FilterSettings.Builder settings = FilterSettings.builder().rules("file:" + rules);
            if (console) {
                settings.metrics(recorder);
            }
            if (storeMode.startsWith("hazelcast")) {
                int memberPort = BenchmarkCluster.freePort();
                String members = "127.0.0.1:" + memberPort + (args.length > 2 ? ",127.0.0.1:" + args[2] : "");
                settings.storeProvider("hazelcast", Map.of(
                        "hazelcast-port", String.valueOf(memberPort),
                        "hazelcast-members", members,
                        "hazelcast-cluster-name", CLUSTER_NAME,
                        "hazelcast-leasing", String.valueOf(leased))::get);
            } else if (!storeMode.equals("local")) {
                throw new IllegalArgumentException("expected none, noop, local, hazelcast, hazelcast-leased or"
                        + " hazelcast-synced, or one of the filtered ones followed by "
                        + CONSOLE_SUFFIX + ", got " + mode);
            }
            filter = new RateLimitFilter(settings.build());
            context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
        }
        Server server = serve(context, port);
        if (console && filter != null) {
            Console.builder(filter.store(), recorder).health(filter::health)
                    .rules((ReloadingRuleSet) context.getServletContext().getAttribute(RateLimitFilter.RULES_ATTRIBUTE),
                            "file").build();
        }
        int members = args.length > 2 && filter != null ? 2 : 1;
        if (mode.startsWith("hazelcast") && filter != null) {
            awaitMembers(filter, members);
        }
        System.out.println(READY + " http://127.0.0.1:" + port + "/api/hello (" + mode
                + (mode.startsWith("hazelcast") ? ", " + members + " members" : "") + ")");
        server.join();
    }

    /** Jetty serving {@code context} on 127.0.0.1:{@code port}, started. */
    static Server serve(ServletContextHandler context, int port) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        server.setHandler(context);
        server.start();
        return server;
    }

    /** Waits until {@code filter}'s store sees {@code members} members, at most 120 s. */
    static void awaitMembers(RateLimitFilter filter, int members) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (filter.health().membersSeen() < members) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the store saw " + filter.health().membersSeen() + " of " + members
                        + " members after 120 s");
            }
            Thread.sleep(100);
        }
    }
}
