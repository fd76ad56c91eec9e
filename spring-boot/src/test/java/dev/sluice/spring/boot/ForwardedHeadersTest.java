package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.spring.boot.testapp.LimitedApplication;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Who names the {@code ip} key behind a proxy that appends to {@code X-Forwarded-For}, as most do: the test client on
 * 127.0.0.1 is that proxy, and each request carries an entry its client wrote (a new one every time) before the one the
 * proxy appended. The rule {@code hello} allows 3 a minute per client. {@code sluice.trusted-proxies} (the page's
 * recommendation) keys by the appended address, so the fourth request is refused; Spring Boot's
 * {@code server.forward-headers-strategy=framework} believes the client's own entry, so none is; {@code native}
 * (Tomcat's RemoteIpValve) believes it when the real client's address is a private one, which the valve takes for a
 * proxy of its own. Each test starts a real application on a free port.
 */
class ForwardedHeadersTest {

    private final List<ConfigurableApplicationContext> applications = new ArrayList<>();

    @AfterEach
    void stop() {
        applications.forEach(ConfigurableApplicationContext::close);
    }

    private Http start(String... properties) {
        ConfigurableApplicationContext application = new SpringApplicationBuilder(LimitedApplication.class)
                .properties("server.port=0").run(properties);
        applications.add(application);
        return new Http(((WebServerApplicationContext) application).getWebServer().getPort());
    }

    /** The statuses of four requests from {@code client}, each with an entry of its own written before it. */
    private static List<Integer> fourFrom(Http http, String client) {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            statuses.add(http.get("/api/hello", "198.51.100." + i + ", " + client).statusCode());
        }
        return statuses;
    }

    @Test
    void trustedProxies_clientWritesEntriesBeforeTheProxys_keyedByTheAddressTheProxyAppended() {
        Http http = start("--sluice.trusted-proxies=127.0.0.1");

        assertThat(fourFrom(http, "203.0.113.200")).containsExactly(200, 200, 200, 429);
    }

    @Test
    void forwardHeadersStrategyFramework_clientWritesEntriesBeforeTheProxys_eachItsOwnKey() {
        Http http = start("--server.forward-headers-strategy=framework", "--sluice.trusted-proxies=");

        assertThat(fourFrom(http, "203.0.113.201")).as("keyed by what the client wrote")
                .containsExactly(200, 200, 200, 200);
    }

    @Test
    void forwardHeadersStrategyNative_publicClient_keyedByIt_privateClient_byWhatItWrote() {
        Http http = start("--server.forward-headers-strategy=native", "--sluice.trusted-proxies=");

        assertThat(fourFrom(http, "203.0.113.202")).containsExactly(200, 200, 200, 429);
        assertThat(fourFrom(http, "10.1.2.3")).as("a client at a private address, taken for a proxy")
                .containsExactly(200, 200, 200, 200);
    }
}
