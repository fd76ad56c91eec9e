package dev.sluice.servlet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;

/** Filters of a rules file that a test writes, for tests that mount them on {@link PathBehaviourServlet}. */
final class RulesFileFilters {

    private RulesFileFilters() {
    }

    /**
     * A filter of the rules {@code rulesJson}, written to a file of its own in {@code dir} and never reloaded, with
     * the rest of its settings from {@code settings}.
     */
    static RateLimitFilter of(Path dir, String rulesJson, UnaryOperator<FilterSettings.Builder> settings)
            throws IOException {
        Path rules = Files.writeString(Files.createTempFile(dir, "rules", ".json"), rulesJson);
        return new RateLimitFilter(settings.apply(FilterSettings.builder().rules("file:" + rules)
                .rulesReloadInterval(Duration.ZERO)).build());
    }
}
