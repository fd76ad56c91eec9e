package dev.sluice.demo;

import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Reads the limiter service's limits from {@value #LOCATION} when the application starts (a mistake in the file
 * fails the start) and keeps them in the servlet context attribute {@link #ATTRIBUTE}. Stateless.
 */
public final class ServiceLimitsListener implements ServletContextListener {

    /** Where the limits are read from, in the web application. */
    public static final String LOCATION = "/WEB-INF/limiter-service.json";

    /** The servlet context attribute holding the {@link ServiceLimits}. */
    public static final String ATTRIBUTE = ServiceLimits.class.getName();

    @Override
    public void contextInitialized(ServletContextEvent event) {
        ServletContext context = event.getServletContext();
        try (@Nullable InputStream in = context.getResourceAsStream(LOCATION)) {
            if (in == null) {
                throw new IllegalStateException("no " + LOCATION + " in the web application");
            }
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            context.setAttribute(ATTRIBUTE, ServiceLimits.parse(LOCATION, json));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + LOCATION, e);
        }
    }
}
