package dev.sluice.console;

import dev.sluice.http.OperationsGuard;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Mounts the console in a JAX-RS application: {@code console/} (the page, its script and style, from this jar) and
 * {@code console/cluster} (the JSON API), relative to the application's path, so it works under any context path.
 * Guarded like the limiter service's operations ({@link OperationsGuard}): a caller with the operations bearer token,
 * or an authenticated user in the operations role; with neither configured, everything answers 404.
 *
 * <pre>{@code
 * register(ConsoleFeature.builder(console).operationsToken(System.getenv("SLUICE_OPERATIONS_TOKEN")).build());
 * }</pre>
 *
 * <p>The application closes the {@link Console}. Immutable and thread-safe. See {@code docs/console.md}.
 */
public final class ConsoleFeature implements Feature {

    private final Console console;
    private final OperationsGuard guard;

    private ConsoleFeature(Builder builder) {
        this.console = builder.console;
        this.guard = new OperationsGuard(builder.token, builder.role);
    }

    /** A feature serving {@code console}. */
    public static Builder builder(Console console) {
        return new Builder(console);
    }

    @Override
    public boolean configure(FeatureContext context) {
        context.register(new ConsoleResource(console, guard));
        return true;
    }

    /** Builds a {@link ConsoleFeature}; not thread-safe. */
    public static final class Builder {
        private final Console console;
        private @Nullable String token;
        private @Nullable String role;

        private Builder(Console console) {
            this.console = Objects.requireNonNull(console, "console");
        }

        /** The bearer token that opens the console: at least 16 characters. */
        public Builder operationsToken(String bearerToken) {
            if (bearerToken.strip().length() < 16) {
                throw new IllegalArgumentException("the operations token must have at least 16 characters");
            }
            this.token = bearerToken.strip();
            return this;
        }

        /** The container role that opens the console (the application configures authentication). */
        public Builder operationsRole(String containerRole) {
            this.role = Objects.requireNonNull(containerRole, "role");
            return this;
        }

        public ConsoleFeature build() {
            return new ConsoleFeature(this);
        }
    }
}
