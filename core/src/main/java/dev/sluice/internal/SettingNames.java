package dev.sluice.internal;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Refuses setting names nobody takes, such as a misspelt {@code web.xml} init-param, which would otherwise leave an
 * application unlimited without a word: the message names the unknown name, the nearest known one (fewest
 * single-character insertions, deletions and substitutions, compared without case) and every known name. Stateless.
 */
public final class SettingNames {

    private SettingNames() {
    }

    /**
     * Checks every given name against the known ones.
     *
     * @param kind what a known name is, for the message, such as {@code a Sluice filter init-param}
     * @param known every name taken, in the order the message lists them
     * @throws IllegalArgumentException for the first unknown name: {@code init-param 'rules-file' is not KIND; did you
     *     mean 'rules'? Known: rules, ...}
     */
    public static void requireKnown(Collection<String> given, String kind, List<String> known) {
        requireKnown(given, "init-param", kind, known);
    }

    /**
     * Checks every given name against the known ones, as {@link #requireKnown(Collection, String, List)} does for
     * settings of another kind than init-params.
     *
     * @param noun what a name is called in the message, such as {@code property}
     * @throws IllegalArgumentException for the first unknown name: {@code NOUN 'NAME' is not KIND; did you mean
     *     'KNOWN'? Known: ...}
     */
    public static void requireKnown(Collection<String> given, String noun, String kind, List<String> known) {
        for (String name : given) {
            if (!known.contains(name)) {
                throw new IllegalArgumentException(refusal(noun, name, kind, known));
            }
        }
    }

    /**
     * The message refusing the unknown name {@code name}: {@code NOUN 'NAME' is not KIND; did you mean 'KNOWN'?
     * Known: ...}, for an adapter that finds unknown names its own way.
     */
    public static String refusal(String noun, String name, String kind, List<String> known) {
        return noun + " '" + name + "' is not " + kind + nearest(name, known) + "Known: " + String.join(", ", known);
    }

    /** {@code ; did you mean 'NAME'? }, or {@code . } when no known name is near. */
    private static String nearest(String name, List<String> known) {
        return nearestTo(name, known).map(candidate -> "; did you mean '" + candidate + "'? ").orElse(". ");
    }

    /**
     * The known name nearest to {@code name} (fewest edits, without case), when it is a likely misspelling: at most
     * half of {@code name}'s letters (and at least two) differ; empty otherwise ("burst" is no misspelling of "unit").
     */
    public static Optional<String> nearestTo(String name, Collection<String> known) {
        int farthest = Math.max(2, name.length() / 2);
        return known.stream().min(Comparator.comparingInt(candidate -> distance(name, candidate)))
                .filter(candidate -> distance(name, candidate) <= farthest);
    }

    /** The Levenshtein distance between two names, without case. */
    static int distance(String a, String b) {
        String left = a.toLowerCase(Locale.ROOT);
        String right = b.toLowerCase(Locale.ROOT);
        int[] previous = new int[right.length() + 1];
        int[] current = new int[right.length() + 1];
        for (int j = 0; j <= right.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= left.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= right.length(); j++) {
                int substitution = previous[j - 1] + (left.charAt(i - 1) == right.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[right.length()];
    }
}
