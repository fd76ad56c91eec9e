package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A web application as users deploy it: {@code WEB-INF/web.xml} registers the filter with init-params, the rules
 * live in {@code WEB-INF}, and a plain servlet and Jersey sit behind the filter.
 */
class WebXmlRegistrationTest {

    private WebAppContext webapp;
    private JettyServer server;

    @BeforeEach
    void deploy() throws Exception {
        webapp = new WebAppContext("src/test/webapp", "/");
        webapp.setParentLoaderPriority(true);
        server = JettyServer.start(50, webapp);
    }

    @AfterEach
    void undeploy() throws Exception {
        server.close();
    }

    @Test
    void webXml_startedFilter_publishesItsStoreInTheServletContext() throws Exception {
        RateLimitFilter filter = (RateLimitFilter) webapp.getServletHandler().getFilter("sluice").getFilter();
        assertThat(webapp.getServletContext().getAttribute(RateLimitFilter.STORE_ATTRIBUTE))
                .isNotNull().isSameAs(filter.store());

        server.close();
        assertThat(webapp.getServletContext().getAttribute(RateLimitFilter.STORE_ATTRIBUTE)).isNull();
    }

    @Test
    void webXml_filterInFrontOfAServlet_limitsPerApiKey() throws Exception {
        assertThat(server.get("/api/report", "X-Api-Key", "k1").statusCode()).isEqualTo(200);
        assertThat(server.get("/api/report", "X-Api-Key", "k1").statusCode()).isEqualTo(200);
        HttpResponse<String> rejected = server.get("/api/report", "X-Api-Key", "k1");
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValue("\"api:2/1m\";q=2;w=60");
        assertThat(server.get("/api/report", "X-Api-Key", "k2").statusCode()).isEqualTo(200);
        assertThat(server.get("/api/report").statusCode()).as("no key: the fallback key").isEqualTo(200);
    }

    @Test
    void webXml_filterInFrontOfJersey_limitsPerPathParameter() throws Exception {
        HttpResponse<String> first = server.get("/jaxrs/greeting/ada");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).isEqualTo("hello ada");
        assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");

        HttpResponse<String> second = server.get("/jaxrs/greeting/ada");
        assertThat(second.statusCode()).isEqualTo(429);
        assertThat(second.body()).contains("\"policies\":[\"greeting:1/1h\"]");
        assertThat(server.get("/jaxrs/greeting/grace").statusCode()).isEqualTo(200);
    }
}
