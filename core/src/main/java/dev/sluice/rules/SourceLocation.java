package dev.sluice.rules;

/**
 * Where a declared value is in the file it was read from: the file, its 1-based line and column, and its JSON path,
 * so that an error in a rule names the place an operator must change. Immutable.
 */
public record SourceLocation(String source, int line, int column, String path) {

    /** An error at this place. */
    public RulesException error(String problem) {
        return new RulesException(source, line, column, path, problem);
    }

    /** {@code source:line:column: path}, as error messages begin. */
    @Override
    public String toString() {
        return source + ":" + line + ":" + column + ": " + path;
    }
}
