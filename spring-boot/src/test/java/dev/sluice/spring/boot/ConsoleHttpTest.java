package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.spring.boot.testapp.LimitedApplication;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The console mounted by the starter in a real application (Jersey 4 as Spring Boot manages it, on its own servlet):
 * the page for anyone, the JSON API with the token only, and this instance's decisions in it.
 */
@SpringBootTest(classes = LimitedApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"sluice.console.token=" + ConsoleHttpTest.TOKEN, "sluice.console.path=/ops"})
class ConsoleHttpTest {

    static final String TOKEN = "0123456789abcdef-console";

    @LocalServerPort
    int port;

    @Test
    void console_pageOpen_apiWithTheTokenOnly_showsThisInstancesDecisions() throws Exception {
        new Http(port).get("/api/hello", "198.51.100.20");

        assertThat(get("/ops/console/", null).statusCode()).isEqualTo(200);
        assertThat(get("/ops/console/cluster", null).statusCode()).isEqualTo(401);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        HttpResponse<String> cluster = get("/ops/console/cluster", TOKEN);
        while (!cluster.body().contains("\"hello\"") && System.nanoTime() < deadline) {
            Thread.sleep(200);
            cluster = get("/ops/console/cluster", TOKEN);
        }
        assertThat(cluster.statusCode()).isEqualTo(200);
        assertThat(cluster.body()).as("published within its interval").contains("\"hello\"");
    }

    private HttpResponse<String> get(String path, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
