package dev.sluice.demo.launcher;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Runs the demo web application on an embedded Jetty 12 (ee10), on 127.0.0.1: {@code java -cp
 * 'demo-webapp/target/lib/*' dev.sluice.demo.launcher.DemoLauncher [options]} (see {@link DemoOptions#USAGE}).
 *
 * <p>The application is the exploded war {@code target/sluice-demo} (the launcher jar is in {@code target/lib}, with
 * Jetty), or, when the launcher
 * runs from {@code target/classes} (tests, IDEs), the module's {@code src/main/webapp} with the classes on the class
 * path. Each instance hands its Hazelcast settings to the Sluice filter as context params
 * ({@code sluice-filter.hazelcast-port} and so on, see {@code dev.sluice.demo.FilterInitParamsListener}), so
 * instances started with the same cluster name and member list form one cluster and share every limit.
 */
public final class DemoLauncher {

    /** The demo application's context init-param for the console's token ({@code DemoApplication}). */
    static final String CONSOLE_TOKEN_PARAM = "sluice-demo.console-token";

    /** The environment variable of the operations token ({@code DemoApplication}). */
    static final String OPERATIONS_TOKEN_VARIABLE = "SLUICE_DEMO_OPERATIONS_TOKEN";

    /**
     * Quiet by default, but for Hazelcast's member list, which shows a second instance joining; set when this class
     * loads. Held:
     * {@code java.util.logging} keeps loggers weakly, and a collected logger forgets its level.
     */
    private static final List<Logger> LOG_LEVELS = List.of(
            level("org.eclipse.jetty", Level.WARNING),
            level("org.glassfish.jersey.server.wadl", Level.SEVERE),
            level("com.hazelcast", Level.WARNING),
            // Its advice to open JDK internals for speed; the demo does not need the speed.
            level("com.hazelcast.instance.impl.HazelcastInstanceFactory", Level.SEVERE),
            level("com.hazelcast.internal.cluster.ClusterService", Level.INFO));

    private DemoLauncher() {
    }

    /** Starts the demo and runs until the JVM is stopped (Ctrl-C). */
    public static void main(String[] args) throws Exception {
        DemoOptions options;
        try {
            options = DemoOptions.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(DemoOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.help()) {
            System.out.println(DemoOptions.USAGE);
            return;
        }
        System.setProperty("hazelcast.phone.home.enabled", "false");
        RunningDemo demo = start(options);
        System.out.println();
        System.out.println("Sluice demo is running at " + demo.uri() + "  (Hazelcast member on 127.0.0.1:"
                + options.hazelcastPort() + ", cluster '" + options.clusterName() + "', members "
                + String.join(",", options.members()) + "; Ctrl-C stops it)");
        System.out.println("The cluster's console: " + demo.consolePage());
        demo.server().join();
    }

    private static Logger level(String name, Level level) {
        Logger logger = Logger.getLogger(name);
        logger.setLevel(level);
        return logger;
    }

    /** Starts one instance of the demo as {@link #main} does, and returns once it serves requests. */
    public static RunningDemo start(DemoOptions options) throws Exception {
        Path webapp = options.webapp() != null ? options.webapp() : defaultWebapp();
        if (!Files.isRegularFile(webapp.resolve("WEB-INF/web.xml"))) {
            throw new IllegalArgumentException("no web application at " + webapp + " (WEB-INF/web.xml is missing)");
        }
        WebAppContext context = new WebAppContext(webapp.toString(), options.contextPath());
        context.setParentLoaderPriority(true);
        context.setThrowUnavailableOnStartupException(true);
        context.setInitParameter("sluice-filter.hazelcast-port", Integer.toString(options.hazelcastPort()));
        context.setInitParameter("sluice-filter.hazelcast-members", String.join(",", options.members()));
        context.setInitParameter("sluice-filter.hazelcast-cluster-name", options.clusterName());
        String consoleToken = consoleToken();
        context.setInitParameter(CONSOLE_TOKEN_PARAM, consoleToken);

        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost(DemoOptions.LOOPBACK);
        connector.setPort(options.port());
        server.addConnector(connector);
        server.setHandler(context);
        server.setStopAtShutdown(true);
        try {
            server.start();
        } catch (Exception e) {
            server.stop();
            throw e;
        }
        String path = options.contextPath().equals("/") ? "/" : options.contextPath() + "/";
        return new RunningDemo(server, URI.create("http://" + DemoOptions.LOOPBACK + ":" + connector.getLocalPort()
                + path), consoleToken);
    }

    /** The console's token: the operations token of the environment, or one drawn for this instance. */
    private static String consoleToken() {
        String given = System.getenv(OPERATIONS_TOKEN_VARIABLE);
        if (given != null && !given.isBlank()) {
            return given.strip();
        }
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    /** The exploded war, when the launcher is the jar in {@code target/lib}; else the module's web sources. */
    private static Path defaultWebapp() throws URISyntaxException {
        Path code = Path.of(DemoLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        // target/lib/sluice-demo.jar or target/classes: two levels up is the module's target or its root.
        Path parent = code.toAbsolutePath().getParent();
        Path twoUp = parent == null ? null : parent.getParent();
        if (twoUp == null) {
            throw new IllegalStateException("the demo's code is not inside a Maven module: " + code);
        }
        return Files.isRegularFile(code) ? twoUp.resolve("sluice-demo")
                : twoUp.resolve("src").resolve("main").resolve("webapp");
    }

    /**
     * A started instance of the demo. Thread-safe.
     *
     * @param uri the base address, ending in {@code /}
     * @param consoleToken the bearer token that opens the console
     */
    public record RunningDemo(Server server, URI uri, String consoleToken) implements AutoCloseable {

        /** The console's page, with the token in the fragment (which the page keeps and takes out of the address). */
        public URI consolePage() {
            return uri.resolve("api/console/#token=" + consoleToken);
        }

        /** Stops the instance: Jetty, and with the application the Sluice filter's Hazelcast member. */
        @Override
        public void close() {
            try {
                server.stop();
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                throw new IllegalStateException("cannot stop the demo at " + uri, e);
            }
        }
    }
}
