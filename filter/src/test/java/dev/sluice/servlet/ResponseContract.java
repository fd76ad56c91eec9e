package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

/**
 * The HTTP contract every adapter must keep, asserted over real HTTP: the servlet filter's tests and the Jersey
 * binding's run the same sequence.
 */
public final class ResponseContract {

    private ResponseContract() {
    }

    /**
     * Three requests to {@code path} under a fresh 3-per-minute token bucket named {@code policy} carry the exact
     * rate-limit fields (remaining 2, 1, 0; the next token 20 s later each time, the {@code RateLimit} field's
     * {@code t}; the bucket full again 20, 40, 60 s later, {@code X-RateLimit-Reset}), and the fourth is a 429 with
     * {@code Retry-After: 20}, no earlier than its {@code t=20}. Returns the rejection.
     */
    public static HttpResponse<String> assertThreePerMinuteThenRejected(JettyServer server, String path,
                                                                        String policy) throws Exception {
        for (int remaining = 2; remaining >= 0; remaining--) {
            HttpResponse<String> response = server.get(path);
            assertThat(response.statusCode()).isEqualTo(200);
            long refill = 20L * (3 - remaining);
            assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"" + policy + "\";q=3;w=60");
            assertThat(response.headers().firstValue("RateLimit"))
                    .hasValue("\"" + policy + "\";r=" + remaining + ";t=20");
            assertThat(response.headers().firstValue("X-RateLimit-Limit")).hasValue("3");
            assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue(Integer.toString(remaining));
            assertThat(response.headers().firstValue("X-RateLimit-Reset")).hasValue(Long.toString(refill));
            assertThat(response.headers().firstValue("Retry-After")).isEmpty();
        }
        HttpResponse<String> rejected = server.get(path);
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("Retry-After")).hasValue("20");
        assertThat(rejected.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        assertThat(rejected.headers().firstValue("RateLimit")).hasValue("\"" + policy + "\";r=0;t=20");
        assertThat(rejected.headers().firstValue("X-RateLimit-Reset")).hasValue("60");
        return rejected;
    }
}
