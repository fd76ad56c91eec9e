package dev.sluice.spring.boot;

import dev.sluice.rules.RulesException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports invalid rules that stopped the start: the rules file's name, line, column and field and what it allows, or
 * the {@code @RateLimited} annotation's class and method, as {@link RulesException} says them. Registered in
 * {@code META-INF/spring.factories}.
 */
public final class RulesFailureAnalyzer extends AbstractFailureAnalyzer<RulesException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RulesException cause) {
        return new FailureAnalysis("Sluice's rules are invalid: " + cause.getMessage(),
                "Correct the rules file (sluice.rules, by default classpath:sluice-rules.json; every field is in"
                        + " docs/rules.md) or the @RateLimited annotation named above.", cause);
    }
}
