package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.spring.boot.testapp.LimitedApplication;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The filter's order decides what a principal key sees: put before Spring Security's filter chain
 * ({@code sluice.filter-order=-200}), no request has a principal yet, so the rule keyed by principal counts every
 * request under its fallback key, the client address, and two users behind one address share one count. The default
 * order (after the chain) counts each user apart ({@code StarterHttpTest}).
 */
@SpringBootTest(classes = LimitedApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "sluice.filter-order=-200")
class FilterBeforeSecurityTest {

    @LocalServerPort
    int port;

    @Test
    void filterBeforeSecurity_principalKeyFallsBackToTheAddress_usersShareOneCount() {
        Http http = new Http(port);
        assertThat(http.getAs("/api/me", "198.51.100.7", "alice", "alice-secret").statusCode()).isEqualTo(200);
        assertThat(http.getAs("/api/me", "198.51.100.7", "alice", "alice-secret").statusCode()).isEqualTo(200);

        assertThat(http.getAs("/api/me", "198.51.100.7", "bob", "bob-secret").statusCode())
                .as("bob counted under alice's address").isEqualTo(429);
    }
}
