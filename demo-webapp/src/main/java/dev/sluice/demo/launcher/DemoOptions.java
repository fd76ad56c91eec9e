package dev.sluice.demo.launcher;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The launcher's command line. Immutable.
 *
 * @param port the HTTP port on 127.0.0.1; 0 picks a free one
 * @param hazelcastPort the port of this instance's Hazelcast member (the next free one above it when taken)
 * @param members the Hazelcast members ({@code host:port}) this instance joins over TCP-IP
 * @param clusterName the Hazelcast cluster name; only instances with the same name join
 * @param contextPath where the application is served, {@code /} or a path such as {@code /app}
 * @param webapp the web application directory, or null for the default (see {@link DemoLauncher})
 * @param help whether to print the usage and stop
 */
public record DemoOptions(int port, int hazelcastPort, List<String> members, String clusterName, String contextPath,
                          @Nullable Path webapp, boolean help) {

    static final String LOOPBACK = "127.0.0.1";

    /** What the launcher accepts. */
    public static final String USAGE = """
            usage: java -cp 'demo-webapp/target/lib/*' dev.sluice.demo.launcher.DemoLauncher [options]
              --port N              HTTP port on 127.0.0.1 (default 8080; 0: any free port)
              --hazelcast-port N    this instance's Hazelcast member port (default 5701)
              --members LIST        Hazelcast members to join, host:port,... (default 127.0.0.1:5701,127.0.0.1:5702)
              --cluster-name NAME   Hazelcast cluster name (default sluice-demo)
              --context-path PATH   where the application is served, such as /app (default /)
              --webapp DIR          the web application directory (default: demo-webapp/target/sluice-demo)
            A second instance sharing every limit with the first: --port 8081 --hazelcast-port 5702""";

    /**
     * The defaults: what {@code java -cp 'demo-webapp/target/lib/*' dev.sluice.demo.launcher.DemoLauncher} (as
     * {@code demo.sh} runs it) runs with.
     */
    public static DemoOptions defaults() {
        return new DemoOptions(8080, 5701, List.of(LOOPBACK + ":5701", LOOPBACK + ":5702"), "sluice-demo", "/",
                null, false);
    }

    public DemoOptions {
        members = List.copyOf(members);
    }

    /**
     * Parses {@code --name value} pairs over the defaults.
     *
     * @throws IllegalArgumentException naming the option and what it expects
     */
    public static DemoOptions parse(List<String> args) {
        DemoOptions options = defaults();
        Iterator<String> rest = args.iterator();
        while (rest.hasNext()) {
            String option = rest.next();
            if (option.equals("--help") || option.equals("-h")) {
                return options.withHelp();
            }
            if (!rest.hasNext()) {
                throw new IllegalArgumentException(option + ": missing value");
            }
            String value = rest.next();
            options = switch (option) {
                case "--port" -> options.withPort(port(option, value, 0));
                case "--hazelcast-port" -> options.withHazelcastPort(port(option, value, 1));
                case "--members" -> options.withMembers(Arrays.stream(value.split(",")).map(String::trim)
                        .filter(member -> !member.isEmpty()).toList());
                case "--cluster-name" -> options.withClusterName(value);
                case "--context-path" -> options.withContextPath(value);
                case "--webapp" -> options.withWebapp(Path.of(value));
                default -> throw new IllegalArgumentException("unknown option " + option);
            };
        }
        return options;
    }

    private static int port(String option, String value, int lowest) {
        try {
            int port = Integer.parseInt(value);
            if (port >= lowest && port <= 65_535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + ": expected a port from " + lowest + " to 65535, got " + value);
    }

    public DemoOptions withPort(int newPort) {
        return new DemoOptions(newPort, hazelcastPort, members, clusterName, contextPath, webapp, help);
    }

    public DemoOptions withHazelcastPort(int newPort) {
        return new DemoOptions(port, newPort, members, clusterName, contextPath, webapp, help);
    }

    public DemoOptions withMembers(List<String> newMembers) {
        return new DemoOptions(port, hazelcastPort, newMembers, clusterName, contextPath, webapp, help);
    }

    public DemoOptions withClusterName(String name) {
        return new DemoOptions(port, hazelcastPort, members, name, contextPath, webapp, help);
    }

    /**
     * Serves the application under {@code path}: {@code /}, or {@code /} and a name such as {@code /app}.
     *
     * @throws IllegalArgumentException for a path that does not start with {@code /} or ends with one after a name
     */
    public DemoOptions withContextPath(String path) {
        if (!path.equals("/") && (!path.startsWith("/") || path.endsWith("/"))) {
            throw new IllegalArgumentException("--context-path: expected / or a path such as /app, got " + path);
        }
        return new DemoOptions(port, hazelcastPort, members, clusterName, path, webapp, help);
    }

    public DemoOptions withWebapp(Path directory) {
        return new DemoOptions(port, hazelcastPort, members, clusterName, contextPath, directory, help);
    }

    private DemoOptions withHelp() {
        return new DemoOptions(port, hazelcastPort, members, clusterName, contextPath, webapp, true);
    }
}
