package dev.sluice.jersey;

import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;

/** Deploys a Jersey application in a Jetty servlet context, as the binding's tests run it. */
final class JerseyServlet {

    private JerseyServlet() {
    }

    /** Serves {@code app} at every path of {@code context}, started with the context (not on the first request). */
    static void deploy(ServletContextHandler context, ResourceConfig app) {
        ServletHolder jersey = new ServletHolder(new ServletContainer(app));
        jersey.setInitOrder(1);
        context.addServlet(jersey, "/*");
    }
}
