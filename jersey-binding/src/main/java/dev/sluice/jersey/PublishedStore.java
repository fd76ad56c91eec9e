package dev.sluice.jersey;

import dev.sluice.http.RateLimitResponse;
import dev.sluice.store.CounterStore;
import jakarta.servlet.ServletContext;
import java.util.Optional;
import org.glassfish.jersey.server.spi.Container;

/**
 * The store a Sluice servlet filter published in the servlet context of the web application Jersey runs in. Kept
 * apart so that the servlet API is loaded only where it is on the class path.
 */
final class PublishedStore {

    private PublishedStore() {
    }

    /** The filter's store, when Jersey runs in a servlet container whose context holds one. */
    static Optional<CounterStore> in(Container container) {
        try {
            ServletContext context = container.getApplicationHandler().getInjectionManager()
                    .getInstance(ServletContext.class);
            Object published = context == null ? null : context.getAttribute(RateLimitResponse.STORE_ATTRIBUTE);
            if (published instanceof CounterStore store) {
                return Optional.of(store);
            }
            return Optional.empty();
        } catch (RuntimeException notInAServletContainer) {
            return Optional.empty();
        }
    }
}
