package dev.sluice.jersey;

import jakarta.annotation.Priority;
import jakarta.ws.rs.RuntimeType;
import jakarta.ws.rs.core.FeatureContext;
import org.glassfish.jersey.internal.spi.AutoDiscoverable;

/**
 * Registers a default {@link RateLimitFeature} in every Jersey server application that has not registered one
 * itself; found by Jersey through {@code META-INF/services}. Turn it off with Jersey's
 * {@code jersey.config.server.disableAutoDiscovery}. Not for direct use; stateless and thread-safe.
 */
@Priority(AutoDiscoverable.DEFAULT_PRIORITY)
public final class RateLimitAutoDiscoverable implements AutoDiscoverable {

    @Override
    public void configure(FeatureContext context) {
        if (context.getConfiguration().getRuntimeType() == RuntimeType.SERVER
                && !context.getConfiguration().isRegistered(RateLimitFeature.class)) {
            context.register(RateLimitFeature.class);
        }
    }
}
