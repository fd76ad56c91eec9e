package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.spring.boot.guarded.GuardedApplication;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * What the default order leaves open, and {@code sluice.before-security.rules} closes ({@code BeforeSecurityHttpTest}):
 * with Sluice only after Spring Security's filter chain, a rule for the login paths never sees a guess, since Spring
 * Security answers the failed form login and the {@code 401} itself. Ten guesses of each kind, none limited.
 */
@SpringBootTest(classes = GuardedApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "sluice.rules=classpath:before-security-rules.json")
class DefaultOrderFailedLoginsTest {

    @LocalServerPort
    int port;

    @Test
    void rulesAfterSpringSecurity_tenWrongPasswordsOfEachKind_noneLimited() {
        Http http = new Http(port);
        List<Integer> form = new ArrayList<>();
        List<Integer> basic = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            form.add(http.postForm("/login", "203.0.113.20", "username=alice&password=guess-" + i).statusCode());
            basic.add(http.getAs("/api/me", "203.0.113.21", "alice", "guess-" + i).statusCode());
        }

        assertThat(form).as("every guess answered by Spring Security").containsOnly(302);
        assertThat(basic).as("every guess answered by Spring Security").containsOnly(401);
    }
}
