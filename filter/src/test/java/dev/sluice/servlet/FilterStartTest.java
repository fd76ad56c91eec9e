package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.http.LimiterStatus;
import java.util.List;
import java.util.function.Supplier;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * What a web application deployed from {@code WEB-INF/web.xml} tells at start: one {@code INFO} line saying what the
 * filter limits with, or, for an init-param nobody takes, a failed deployment naming it.
 */
class FilterStartTest {

    private static final String MISSPELT = "Sluice filter 'sluice' cannot start: init-param 'rules-file' is not a"
            + " Sluice filter init-param; did you mean 'rules'? Known: rules, rules-reload-interval, store,"
            + " failure-policy, store-timeout, header-style, trusted-proxies, client-address-header, ipv6-prefix,"
            + " max-keys, rejection-cache, namespace, metrics";

    @AutoClose
    private final JettyServers servers = new JettyServers();

    private static WebAppContext webapp(String directory) {
        WebAppContext webapp = new WebAppContext(directory, "/");
        webapp.setParentLoaderPriority(true);
        webapp.setThrowUnavailableOnStartupException(true);
        return webapp;
    }

    @Test
    void webXml_misspeltRulesInitParam_failsTheDeploymentNamingTheNearestInitParam() {
        try (LogCapture log = LogCapture.start()) {
            assertThatThrownBy(() -> servers.add(JettyServer.start(20, webapp("src/test/webapp-misspelt"))))
                    .hasStackTraceContaining(MISSPELT);

            assertThat(log.records()).anySatisfy(record -> assertThat(record)
                    .contains(RateLimitFilter.class.getName()).contains("SEVERE: " + MISSPELT));
        }
    }

    @Test
    void webXml_startedFilter_logsOneStartLineAndPublishesTheSameFactsAsItsStatus() throws Exception {
        WebAppContext webapp = webapp("src/test/webapp");
        List<String> startLines;
        try (LogCapture log = LogCapture.start()) {
            servers.add(JettyServer.start(20, webapp));
            startLines = log.records().stream().filter(record -> record.contains("Sluice filter")).toList();
        }

        String expected = "Sluice filter 'sluice' started: store local (this instance only), 2 rules from"
                + " /WEB-INF/sluice-rules.json (reload every 5s), no failure policy, headers both";
        assertThat(startLines).singleElement().satisfies(record -> assertThat(record)
                .contains(RateLimitFilter.class.getName()).contains("INFO: " + expected));
        @SuppressWarnings("unchecked")
        LimiterStatus status = ((Supplier<LimiterStatus>) webapp.getServletContext()
                .getAttribute(RateLimitFilter.STATUS_ATTRIBUTE)).get();
        assertThat(status).isEqualTo(new LimiterStatus("Sluice filter 'sluice'", "local", 0, 2,
                "/WEB-INF/sluice-rules.json", "5s", "none", "none", "both"));
        assertThat(status.startLine()).isEqualTo(expected);
    }
}
