package dev.sluice.internal.json;

import dev.sluice.rules.RulesException;

/**
 * A JSON document that cannot be read, or a value in it that its reader does not take: the message is
 * {@code source:line:column: jsonPath: problem}. A {@link RulesException}, the rules file being the first of these
 * documents; readers of other documents catch this type alone.
 */
public final class JsonException extends RulesException {

    private static final long serialVersionUID = 1L;

    private final String problem;

    JsonException(String source, int line, int column, String jsonPath, String problem) {
        super(source, line, column, jsonPath, problem);
        this.problem = problem;
    }

    /** What is wrong, without the place: {@code duplicate field "id"}. */
    public String problem() {
        return problem;
    }
}
