package dev.sluice.spring.boot.testapp;

import dev.sluice.annotation.RateLimitExempt;
import dev.sluice.annotation.RateLimited;
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
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The tests' Spring Boot application: the starter's auto-configuration as an application gets it, the rules file
 * {@code sluice-rules.json} of the test class path, {@code @RateLimited} controllers, and Spring Security in front
 * (HTTP basic for {@code /api/me}, users alice and bob; every other path open).
 */
@SpringBootApplication
public class LimitedApplication {

    /** Holds {@code /api/slow} requests until the test lets them go. */
    public static volatile CountDownLatch slowRelease = new CountDownLatch(0);

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
        return http.authorizeHttpRequests(requests -> requests.requestMatchers("/api/me").authenticated()
                        .anyRequest().permitAll())
                .httpBasic(Customizer.withDefaults()).csrf(csrf -> csrf.disable()).build();
    }

    @Bean
    InMemoryUserDetailsManager users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("alice").password("{noop}alice-secret").roles("USER").build(),
                User.withUsername("bob").password("{noop}bob-secret").roles("USER").build());
    }

    @RestController
    @RequestMapping("/api")
    public static class Greetings {

        /** Limited by the rules file's rule {@code hello}: 3 per minute per client. */
        @GetMapping("/hello")
        String hello() {
            return "hello";
        }

        @GetMapping("/annotated")
        @RateLimited(permits = 2, period = "1m")
        String annotated() {
            return "annotated";
        }

        /** The rules file's rule of the same id replaces these limits with 1 per minute. */
        @GetMapping("/search")
        @RateLimited(id = "search", permits = 100, period = "1m")
        String search() {
            return "search";
        }

        @GetMapping("/items/{id}")
        @RateLimited(permits = 1, period = "1m", key = "path:id")
        String item(@PathVariable String id) {
            return "item " + id;
        }

        @GetMapping("/shadowed")
        @RateLimited(permits = 1, period = "1m", shadow = true)
        String shadowed() {
            return "shadowed";
        }

        /** Also under the rules file's rule {@code together} (10 per minute). */
        @GetMapping("/together/one")
        @RateLimited(permits = 1, period = "1m")
        String together() {
            return "together";
        }

        @GetMapping("/slow")
        @RateLimited(concurrency = 1)
        String slow() throws InterruptedException {
            slowRelease.await(10, TimeUnit.SECONDS);
            return "slow";
        }

        /** Limited by the rules file's rule {@code per-user}: 2 per minute per principal. */
        @GetMapping("/me")
        String me(Principal principal) {
            return principal.getName();
        }
    }

    /** Two per minute per client, shared by every method of the class but the exempt one. */
    @RestController
    @RequestMapping("/api/class")
    @RateLimited(permits = 2, period = "1m")
    static class ClassLimited {

        @GetMapping("/a")
        String a() {
            return "a";
        }

        @GetMapping("/b")
        String b() {
            return "b";
        }

        @GetMapping("/free")
        @RateLimitExempt
        String free() {
            return "free";
        }
    }
}
