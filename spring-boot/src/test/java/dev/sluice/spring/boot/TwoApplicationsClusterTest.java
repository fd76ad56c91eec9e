package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.ClusterSupport;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.spring.boot.testapp.LimitedApplication;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two Spring Boot applications, each a member of one Hazelcast cluster that Spring Boot's own Hazelcast
 * auto-configuration makes from its {@code hazelcast.yaml}, hold one limit exactly across both over HTTP; and one
 * whose cluster is gone limits on its own, as the failure policy says, and says so in its health.
 */
@Tag("cluster")
class TwoApplicationsClusterTest {

    private static final int LIMIT = 40;

    @TempDir
    Path dir;

    private final List<ConfigurableApplicationContext> applications = new ArrayList<>();

    @AfterEach
    void stop() {
        applications.forEach(ConfigurableApplicationContext::close);
    }

    private List<ConfigurableApplicationContext> startTwo() throws IOException {
        String cluster = ClusterSupport.newClusterName();
        List<Integer> ports = List.of(ClusterSupport.freePort(), ClusterSupport.freePort());
        for (int port : ports) {
            Path yaml = ClusterSupport.memberYaml(dir, cluster, port, ports);
            applications.add(new SpringApplicationBuilder(LimitedApplication.class).properties("server.port=0",
                    "spring.hazelcast.config=file:" + yaml, "sluice.rules=classpath:cluster-rules.json").run());
        }
        ClusterSupport.await(() -> applications.stream().allMatch(application ->
                application.getBean(HazelcastInstance.class).getCluster().getMembers().size() == 2),
                Duration.ofSeconds(30), "both applications' members in one cluster");
        return applications;
    }

    private static Http http(ConfigurableApplicationContext application) {
        return new Http(((WebServerApplicationContext) application).getWebServer().getPort());
    }

    @Test
    void twoApplications_oneClusterFromSpringBootsHazelcast_holdALimitOfNExactlyOverHttp() throws Exception {
        List<ConfigurableApplicationContext> both = startTwo();
        assertThat(both.get(0).getBean(RateLimitFilter.class).status().store()).isEqualTo("hazelcast-instance");
        int threads = 8;
        int perThread = 20;
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Http http = http(both.get(t % 2));
                running.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        int status = http.get("/api/hello", "192.0.2.1").statusCode();
                        (status == 200 ? admitted : status == 429 ? rejected : new AtomicInteger()).incrementAndGet();
                    }
                }));
            }
            for (Future<?> thread : running) {
                thread.get();
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(admitted).as("admitted across both applications").hasValue(LIMIT);
        assertThat(rejected).as("every other answer a 429").hasValue(threads * perThread - LIMIT);
        for (ConfigurableApplicationContext application : both) {
            assertThat(http(application).get("/actuator/health/sluice", "192.0.2.9").body())
                    .contains("\"status\":\"UP\"", "\"store\":\"hazelcast-instance\"", "\"membersSeen\":2");
        }
    }

    @Test
    void applicationWhoseClusterIsGone_limitsOnItsOwnAndHealthSaysDegraded() throws IOException {
        List<ConfigurableApplicationContext> both = startTwo();
        ConfigurableApplicationContext cutOff = both.get(1);
        cutOff.getBean(HazelcastInstance.class).getLifecycleService().terminate();
        Http http = http(cutOff);

        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < LIMIT + 5; i++) {
            statuses.add(http.get("/api/hello", "192.0.2.2").statusCode());
        }

        assertThat(statuses.subList(0, LIMIT)).as("counted on this instance alone").containsOnly(200);
        assertThat(statuses.subList(LIMIT, LIMIT + 5)).as("never unlimited").containsOnly(429);
        HttpResponse<String> health = http.get("/actuator/health/sluice", "192.0.2.9");
        assertThat(health.body()).contains("\"status\":\"DEGRADED\"", "\"membersSeen\":0",
                "\"failurePolicy\":\"local\"");
    }
}
