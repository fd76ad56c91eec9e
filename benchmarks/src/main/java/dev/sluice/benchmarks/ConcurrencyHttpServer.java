package dev.sluice.benchmarks;

import dev.sluice.servlet.FilterSettings;
import dev.sluice.servlet.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;

/**
 * One instance of the concurrency-limit HTTP run ({@link ConcurrencyHttpRun}): Jetty 12 with Sluice's filter holding
 * {@code PERMITS} requests of one tenant in flight, in front of a servlet at {@code /api/export} that sleeps 50 ms, the
 * permits counted in the local store ({@code local}: each instance alone) or in a Hazelcast member embedded here
 * ({@code hazelcast}) that joins the other instance's member.
 *
 * <p>The servlet writes down when each request entered and left it ({@link System#nanoTime()}, which on Linux is one
 * clock for every process of the machine) and serves the list at {@code /intervals}, and its clock at {@code /clock},
 * so that the run can count the most requests in flight across both instances at once.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.ConcurrencyHttpServer
 * local|hazelcast PORT PERMITS MEMBER_PORT OTHER_MEMBER_PORT}; prints {@value #READY} once serving; stops when killed.
 */
public final class ConcurrencyHttpServer {

    /** The start of the line printed once the server answers. */
    static final String READY = "serving";

    /** How long the servlet holds each request. */
    static final long SLEEP_MILLIS = 50;

    private static final String CLUSTER_NAME = "sluice-concurrency-bench";

    /** The most requests whose times are written down: far more than a run of minutes sends past the filter. */
    private static final int MAX_INTERVALS = 1_000_000;

    private ConcurrencyHttpServer() {
    }

    /** The rules: {@code permits} requests of the tenant that {@code X-Tenant} names in flight at once. */
    static String rules(int permits) {
        return """
                {"rules": [{"id": "exports", "match": {"paths": ["/api/export"]},
                            "key": {"type": "header", "name": "X-Tenant"}, "concurrency": %d}]}
                """.formatted(permits);
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0].toLowerCase(Locale.ROOT);
        int port = Integer.parseInt(args[1]);
        int permits = Integer.parseInt(args[2]);
        Path rules = Files.writeString(Files.createTempFile("sluice-concurrency-bench", ".json"), rules(permits));
        rules.toFile().deleteOnExit();
        FilterSettings.Builder settings = FilterSettings.builder().rules("file:" + rules);
        boolean hazelcast = mode.equals("hazelcast");
        if (hazelcast) {
            settings.storeProvider("hazelcast", Map.of(
                    "hazelcast-port", args[3],
                    "hazelcast-members", "127.0.0.1:" + args[3] + ",127.0.0.1:" + args[4],
                    "hazelcast-cluster-name", CLUSTER_NAME)::get);
        } else if (!mode.equals("local")) {
            throw new IllegalArgumentException("expected local or hazelcast, got " + mode);
        }
        RateLimitFilter filter = new RateLimitFilter(settings.build());
        Intervals intervals = new Intervals(MAX_INTERVALS);

        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.addServlet(new ServletHolder(new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                long entered = System.nanoTime();
                try {
                    Thread.sleep(SLEEP_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                intervals.add(entered, System.nanoTime());
                response.setContentType("text/plain");
                response.getOutputStream().write('o');
                response.getOutputStream().write('k');
            }
        }), "/api/export");
        context.addServlet(new ServletHolder(new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                response.setContentType("application/octet-stream");
                intervals.writeTo(new DataOutputStream(response.getOutputStream()));
            }
        }), "/intervals");
        context.addServlet(new ServletHolder(new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                response.setContentType("text/plain");
                response.getWriter().print(System.nanoTime());
            }
        }), "/clock");
        context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
        Server server = HttpOverheadServer.serve(context, port);
        if (hazelcast) {
            HttpOverheadServer.awaitMembers(filter, 2);
        }
        System.out.println(READY + " http://127.0.0.1:" + port + "/api/export (" + mode + ", " + permits
                + " permits)");
        server.join();
    }

    /** When each request entered and left the servlet, the first {@code max} requests; thread-safe. */
    private static final class Intervals {
        private final AtomicLongArray times;
        private final AtomicInteger written = new AtomicInteger();

        Intervals(int max) {
            this.times = new AtomicLongArray(2 * max);
        }

        void add(long entered, long left) {
            int at = written.getAndIncrement();
            if (at < times.length() / 2) {
                times.set(2 * at, entered);
                times.set(2 * at + 1, left);
            }
        }

        /**
         * The count, then each request's entry and exit. A request still writing its pair shows zeros: the reader
         * skips them (it reads once the load has stopped).
         */
        void writeTo(DataOutputStream out) throws IOException {
            int count = Math.min(written.get(), times.length() / 2);
            out.writeInt(count);
            for (int i = 0; i < 2 * count; i++) {
                out.writeLong(times.get(i));
            }
            out.flush();
        }
    }
}
