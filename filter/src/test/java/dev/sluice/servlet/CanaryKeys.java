package dev.sluice.servlet;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.util.Collection;
import java.util.List;

/**
 * Distinctive key values for tests that prove keys never leave in clear: each is sent as a client's key (API key,
 * user name, a spoofable header, a path or query parameter, a client address) and must then be found in no log
 * record, meter or page. Public for other modules' tests (through this module's test-jar).
 */
public final class CanaryKeys {

    public static final String API_KEY = "canary-apikey-7f3a";
    public static final String USER = "canary-user-2c9e";
    /** The value of a header any client can set, such as a tenant or plan header. */
    public static final String HEADER = "canary-header-b41d";
    public static final String PATH = "canary-path-5e07";
    public static final String QUERY = "canary-query-d8a2";
    /** A client address, sent through {@code X-Forwarded-For} from a trusted loopback proxy. */
    public static final String IP = "198.51.100.173";
    public static final String IPV6 = "2001:db8::c4a7";

    public static final List<String> ALL = List.of(API_KEY, USER, HEADER, PATH, QUERY, IP, IPV6);

    private CanaryKeys() {
    }

    /** Every meter of {@code registry} as text: name, tags, description and base unit. */
    public static List<String> meters(MeterRegistry registry) {
        return registry.getMeters().stream().map(Meter::getId)
                .map(id -> id + " " + id.getDescription() + " " + id.getBaseUnit()).toList();
    }

    /**
     * What Sluice contributes to a response, to search for canaries: the status, the headers, and the body of a
     * rejection (other bodies are the application's, which may well show the client its own user name).
     */
    public static String rateLimitPart(HttpResponse<String> response) {
        return response.statusCode() + " " + response.headers().map()
                + (response.statusCode() == 429 ? " " + response.body() : "");
    }

    /** The texts of {@code texts} that contain a canary: leaks. */
    public static List<String> leaks(Collection<String> texts) {
        return texts.stream().filter(text -> ALL.stream().anyMatch(text::contains)).toList();
    }
}
