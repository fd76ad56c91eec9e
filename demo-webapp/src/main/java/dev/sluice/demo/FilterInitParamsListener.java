package dev.sluice.demo;

import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import java.util.Collections;
import org.jspecify.annotations.Nullable;

/**
 * Hands per-instance settings to the Sluice filter: every context init-param named {@value #PREFIX}{@code NAME}
 * becomes the init-param {@code NAME} of the filter named {@value #FILTER_NAME}, before the filter starts.
 *
 * <p>{@code web.xml} is the same for every instance, but two instances on one machine need their own Hazelcast
 * ports: the launcher sets {@code sluice-filter.hazelcast-port} and friends as context params of each instance. A
 * param that {@code web.xml} already sets on the filter cannot be replaced, and fails the start. Declared in
 * {@code web.xml}, as the Servlet specification requires of a listener that changes registrations. Stateless.
 */
public final class FilterInitParamsListener implements ServletContextListener {

    /** The prefix of the context init-params handed to the filter. */
    public static final String PREFIX = "sluice-filter.";

    /** The filter that receives them. */
    public static final String FILTER_NAME = "sluice";

    @Override
    public void contextInitialized(ServletContextEvent event) {
        ServletContext context = event.getServletContext();
        @Nullable FilterRegistration filter = context.getFilterRegistration(FILTER_NAME);
        for (String name : Collections.list(context.getInitParameterNames())) {
            if (!name.startsWith(PREFIX)) {
                continue;
            }
            if (filter == null) {
                throw new IllegalStateException("context param " + name + ": no filter named " + FILTER_NAME);
            }
            String param = name.substring(PREFIX.length());
            if (!filter.setInitParameter(param, context.getInitParameter(name))) {
                throw new IllegalStateException("context param " + name + ": web.xml already sets the init-param "
                        + param + " of filter " + FILTER_NAME);
            }
        }
    }
}
