package dev.sluice.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link SluiceConfigurationException} that stopped the start: what is wrong (the property and the value, or
 * the store) and what to do. Registered in {@code META-INF/spring.factories}.
 */
public final class SluiceFailureAnalyzer extends AbstractFailureAnalyzer<SluiceConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SluiceConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}
