package dev.sluice.rules;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A rules file, annotation or rule set that cannot be used, with a message saying where and what was expected:
 * {@code rules.json:7:18: $.rules[1].limits[0].period: expected a duration such as "10s", ..., got "5 minutes"}.
 *
 * <p>For errors in a file, {@link #source()}, {@link #line()}, {@link #column()} and {@link #jsonPath()} locate it;
 * otherwise they are empty or 0.
 */
public class RulesException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final @Nullable String source;
    private final int line;
    private final int column;
    private final @Nullable String jsonPath;

    /** An error not tied to a place in a file; {@code cause} may be null. */
    public RulesException(String message, @Nullable Throwable cause) {
        super(message, cause);
        this.source = null;
        this.line = 0;
        this.column = 0;
        this.jsonPath = null;
    }

    /** An error not tied to a place in a file. */
    public RulesException(String message) {
        this(message, null);
    }

    /** An error at a place in a rules file; the message is {@code source:line:column: jsonPath: problem}. */
    public RulesException(String source, int line, int column, String jsonPath, String problem) {
        super(source + ":" + line + ":" + column + ": " + jsonPath + ": " + problem);
        this.source = source;
        this.line = line;
        this.column = column;
        this.jsonPath = jsonPath;
    }

    /** The file's name; empty for an error not in a file. */
    public Optional<String> source() {
        return Optional.ofNullable(source);
    }

    /** The 1-based line of the error in the file, or 0. */
    public int line() {
        return line;
    }

    /** The 1-based column of the error in the file, or 0. */
    public int column() {
        return column;
    }

    /** The JSON path of the offending value, such as {@code $.rules[1].limits[0].period}; empty if not in a file. */
    public Optional<String> jsonPath() {
        return Optional.ofNullable(jsonPath);
    }
}
