package dev.sluice.spring.boot;

import org.jspecify.annotations.Nullable;

/**
 * Sluice cannot start as the application is configured: a {@code sluice.*} property it does not know, a value it
 * cannot use, or a store the application asks for and does not have. Says what is wrong and what to do about it, as
 * {@link SluiceFailureAnalyzer} reports it at the start.
 */
public final class SluiceConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String action;

    public SluiceConfigurationException(String description, String action) {
        super(description);
        this.action = action;
    }

    public SluiceConfigurationException(String description, String action, @Nullable Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    /** What to do about it. */
    public String action() {
        return action;
    }
}
