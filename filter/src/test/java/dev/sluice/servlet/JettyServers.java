package dev.sluice.servlet;

import java.util.ArrayList;
import java.util.List;

/** The Jetty servers a test started, closed together after it: a field marked {@code @AutoClose}. */
public final class JettyServers implements AutoCloseable {

    private final List<JettyServer> started = new ArrayList<>();

    /** Keeps {@code server} to close after the test; returns it. */
    public JettyServer add(JettyServer server) {
        started.add(server);
        return server;
    }

    @Override
    public void close() throws Exception {
        for (JettyServer server : started) {
            server.close();
        }
        started.clear();
    }
}
