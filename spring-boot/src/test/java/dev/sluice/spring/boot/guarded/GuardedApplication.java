package dev.sluice.spring.boot.guarded;

import java.security.Principal;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring Boot application whose logins Spring Security checks itself: form login ({@code POST /login}, answered
 * with a redirect, to {@code /login?error} when the password is wrong) and HTTP basic ({@code 401} to wrong
 * credentials) for {@code /api/me}, user alice; {@code /api/held} holds its requests until the test lets them go. CSRF
 * is off so that the tests' form posts need no token (an attacker would fetch one first).
 */
@SpringBootApplication
public class GuardedApplication {

    /** Holds {@code /api/held} requests until the test lets them go. */
    public static volatile CountDownLatch heldRelease = new CountDownLatch(0);

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
        return http.authorizeHttpRequests(requests -> requests.requestMatchers("/api/me").authenticated()
                        .anyRequest().permitAll())
                .formLogin(Customizer.withDefaults()).httpBasic(Customizer.withDefaults())
                .csrf(csrf -> csrf.disable()).build();
    }

    @Bean
    InMemoryUserDetailsManager users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("alice").password("{noop}alice-secret").roles("USER").build());
    }

    @RestController
    static class Handlers {

        @GetMapping("/api/me")
        String me(Principal principal) {
            return principal.getName();
        }

        @GetMapping("/api/held")
        String held() throws InterruptedException {
            heldRelease.await(10, TimeUnit.SECONDS);
            return "held";
        }
    }
}
