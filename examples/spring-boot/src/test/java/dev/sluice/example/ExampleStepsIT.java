package dev.sluice.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.hazelcast.ClusterSupport;
import java.io.BufferedReader;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The example's steps as {@code docs/spring-boot.md} gives them, on the jar this build packaged: {@code java -jar} it,
 * send the page's requests, and get the page's answers; then two instances in one cluster (the page's second part)
 * hold one limit. Each instance is a process of its own on free ports (the page's 8080 and 5701 may be taken here).
 */
class ExampleStepsIT {

    private static final Path JAR = Path.of("target/sluice-spring-boot-example.jar");
    private static final Path PAGE = Path.of("../../docs/spring-boot.md");
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /**
     * A transcript line of the page: a loop of curls to one path, {@code seq N} times at port 8080 or over a list of
     * ports (8080 and 8081, the two instances), and the answers the page shows below it.
     */
    private static final Pattern CURLS = Pattern.compile("\\$ for (?:i in \\$\\(seq (\\d+)\\)|port in ([0-9 ]+)); do"
            + " curl -s -o /dev/null -w '%\\{http_code\\} ' http://127\\.0\\.0\\.1:(?:8080|\\$port)(/[^;\\s]*); done\\n"
            + "([0-9 ]+)\\n");

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (Process process : started) {
            process.destroy();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void oneInstance_thePagesRequests_getThePagesAnswers() throws Exception {
        List<Transcript> transcripts = transcripts();
        int port = freePort();
        Instance instance = start(List.of("--server.port=" + port));
        assertThat(instance.output()).anySatisfy(line -> assertThat(line).contains("Sluice filter 'sluice' started:"
                + " store local (this instance only), 2 rules from annotations and classpath:sluice-rules.json"));

        for (Transcript transcript : transcripts.stream().filter(t -> !t.alternating()).toList()) {
            assertThat(statuses(List.of(port), transcript)).as(transcript.command()).isEqualTo(transcript.answers());
        }
        assertThat(get(port, "/actuator/health/sluice").body()).contains("\"status\":\"UP\"", "\"store\":\"local\"");
    }

    @Test
    void twoInstancesOfTheClusterProfile_shareOneLimit() throws Exception {
        Transcript alternating = transcripts().stream().filter(Transcript::alternating).findFirst().orElseThrow();
        List<Integer> httpPorts = List.of(freePort(), freePort());
        List<Integer> memberPorts = List.of(ClusterSupport.freePort(), ClusterSupport.freePort());
        String members = "127.0.0.1:" + memberPorts.get(0) + ",127.0.0.1:" + memberPorts.get(1);
        List<Instance> instances = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            instances.add(start(List.of("--spring.profiles.active=cluster", "--server.port=" + httpPorts.get(i),
                    "--example.hazelcast.port=" + memberPorts.get(i), "--example.hazelcast.members=" + members)));
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!get(httpPorts.get(0), "/actuator/health/sluice").body().contains("\"membersSeen\":2")) {
            assertThat(System.nanoTime()).as("both members in one cluster within 60 s").isLessThan(deadline);
            Thread.sleep(200);
        }
        assertThat(instances.get(1).output()).anySatisfy(line -> assertThat(line).contains("store hazelcast-instance"));

        assertThat(statuses(httpPorts, alternating)).as(alternating.command()).isEqualTo(alternating.answers());
    }

    /** The page's curl loops, with their answers. */
    private static List<Transcript> transcripts() throws IOException {
        String page = Files.readString(PAGE);
        Matcher curls = CURLS.matcher(page.substring(page.indexOf("## The example")));
        List<Transcript> found = new ArrayList<>();
        while (curls.find()) {
            List<Integer> instances = new ArrayList<>();
            if (curls.group(2) == null) {
                for (int i = 0; i < Integer.parseInt(curls.group(1)); i++) {
                    instances.add(0);
                }
            } else {
                for (String port : curls.group(2).trim().split(" ")) {
                    instances.add(Integer.parseInt(port) - 8080);
                }
            }
            found.add(new Transcript(curls.group(0).lines().findFirst().orElseThrow(), instances, curls.group(3),
                    curls.group(4).trim()));
        }
        assertThat(found).as("the page's example transcripts").hasSizeGreaterThanOrEqualTo(3);
        return found;
    }

    /**
     * A curl loop of the page: a request to {@code path} for each of {@code instances} (0 for the page's 8080, 1 for
     * its 8081), and the page's answers.
     */
    private record Transcript(String command, List<Integer> instances, String path, String answers) {

        boolean alternating() {
            return instances.contains(1);
        }
    }

    /** The loop's answers, as curl prints them: statuses separated by spaces. */
    private static String statuses(List<Integer> ports, Transcript transcript) throws Exception {
        List<String> statuses = new ArrayList<>();
        for (int instance : transcript.instances()) {
            statuses.add(Integer.toString(get(ports.get(instance), transcript.path()).statusCode()));
        }
        return String.join(" ", statuses);
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private record Instance(Process process, List<String> output) {
    }

    /** Starts {@code java -jar} the example with {@code args}; returns once it is started (at most 120 s). */
    private Instance start(List<String> args) throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-jar", JAR.toString()));
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        started.add(process);
        List<String> output = new CopyOnWriteArrayList<>();
        CountDownLatch ready = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = process.inputReader(StandardCharsets.UTF_8)) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    output.add(line);
                    if (line.contains("Started ExampleApplication")) {
                        ready.countDown();
                    }
                }
            } catch (IOException ended) {
                // The process is gone: the wait below notices.
            }
        });
        reader.setDaemon(true);
        reader.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!ready.await(1, TimeUnit.SECONDS)) {
            assertThat(process.isAlive() && System.nanoTime() < deadline).as("started: " + output).isTrue();
        }
        return new Instance(process, output);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
