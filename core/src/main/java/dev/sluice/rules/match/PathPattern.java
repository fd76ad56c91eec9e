package dev.sluice.rules.match;

import java.util.Arrays;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A path pattern such as {@code /api/users/{id}}: literal segments, {@code *} for any one segment, {@code {name}} for
 * any one segment captured as a path parameter, and a final {@code **} for any number of segments, none included.
 *
 * <p>Rules match patterns through a trie of all their patterns; {@link #matches(String)} matches one pattern on its
 * own, for adapters that keep a few patterns of their own (the Jersey client filter's rules). Immutable and
 * thread-safe.
 */
public final class PathPattern {

    private static final Pattern VARIABLE = Pattern.compile("\\{[A-Za-z_][A-Za-z0-9_.-]*}");

    private final String text;
    private final String[] segments;
    /** The variable's name for a {@code {name}} segment; null for the others. */
    private final @Nullable String[] variables;
    private final boolean trailingWildcard;

    private PathPattern(String text, String[] segments, @Nullable String[] variables, boolean trailingWildcard) {
        this.text = text;
        this.segments = segments;
        this.variables = variables;
        this.trailingWildcard = trailingWildcard;
    }

    /** Parses a pattern; throws {@link IllegalArgumentException} saying what a pattern may contain. */
    public static PathPattern parse(String text) {
        if (!text.startsWith("/")) {
            throw invalid(text, "it must start with \"/\"");
        }
        String[] parts = text.equals("/") ? new String[0] : text.substring(1).split("/", -1);
        boolean trailingWildcard = parts.length > 0 && parts[parts.length - 1].equals("**");
        int count = trailingWildcard ? parts.length - 1 : parts.length;
        String[] segments = Arrays.copyOf(parts, count);
        @Nullable String[] variables = new String[count];
        for (int i = 0; i < count; i++) {
            String segment = segments[i];
            if (VARIABLE.matcher(segment).matches()) {
                variables[i] = segment.substring(1, segment.length() - 1);
            } else if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw invalid(text, "it has an empty, \".\" or \"..\" segment");
            } else if (segment.equals("**")) {
                throw invalid(text, "\"**\" may only be its last segment");
            } else if (!segment.equals("*") && (segment.contains("*") || segment.contains("{")
                    || segment.contains("}") || segment.contains(";") || segment.contains("%"))) {
                throw invalid(text, "segment \"" + segment + "\" mixes text with \"*\", \"{\", \"}\", \";\" or \"%\"");
            }
        }
        return new PathPattern(text, segments, variables, trailingWildcard);
    }

    private static IllegalArgumentException invalid(String text, String reason) {
        return new IllegalArgumentException("invalid path pattern \"" + text + "\": " + reason
                + "; expected literal segments, \"*\", \"{name}\" and a final \"**\", such as \"/api/users/{id}\"");
    }

    /**
     * Whether {@code rawPath} (as sent, undecoded; a query is ignored) matches this pattern, after the same
     * normalization rules apply: {@code //} collapses, {@code ;parameters} are dropped, {@code .} and {@code ..}
     * resolved and percent-escapes decoded.
     */
    public boolean matches(String rawPath) {
        NormalizedPath path = NormalizedPath.of(rawPath);
        if (path.size() < segments.length || path.size() > segments.length && !trailingWildcard) {
            return false;
        }
        for (int i = 0; i < segments.length; i++) {
            String literal = literal(i);
            if (literal != null && !literal.equals(path.segment(i))) {
                return false;
            }
        }
        return true;
    }

    /** The number of segments before any trailing {@code **}. */
    int length() {
        return segments.length;
    }

    /** The literal text of segment {@code index}; null when it matches any segment. */
    @Nullable String literal(int index) {
        String segment = segments[index];
        return segment.equals("*") || variables[index] != null ? null : segment;
    }

    boolean trailingWildcard() {
        return trailingWildcard;
    }

    /** The value of path variable {@code name} in {@code path}, which this pattern matched; null if there is none. */
    public @Nullable String variable(String name, NormalizedPath path) {
        for (int i = 0; i < variables.length; i++) {
            if (name.equals(variables[i])) {
                return path.segment(i);
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return text;
    }
}
