package dev.sluice.hazelcast;

import dev.sluice.algorithm.Policy;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;

/**
 * The text form in which {@link CompareAndSetCounterStore} keeps a key's state ({@code long[]} per limit) as a plain
 * {@code String}: a format version character, then one field per limit, each led by {@code ';'}: the state's values
 * in base 36 separated by {@code ','}, nothing for an empty state, {@code '!'} for none. Token bucket state at
 * 2026-01-01 reads {@code 1;9,dfct6ww35s00,0}: ASCII, so one byte a character in Hazelcast's UTF-8 serialization.
 *
 * <p>Decoding checks what it allocates by: at most {@link Policy#MAX_LIMITS} fields, and values counted from the
 * text itself, so a value never makes it allocate more than its own length. A text of another version, or one that
 * is not of this form, is refused with an {@link IllegalStateException}: the store does not guess at counters it
 * cannot read (a newer writer's format, another application's value under the same map name). Stateless.
 */
@NullMarked
final class StateText {

    /** The format version this class writes and reads, the text's first character. */
    static final char VERSION = '1';

    private static final char LIMIT = ';';
    private static final char VALUE = ',';
    private static final char NONE = '!';
    private static final int RADIX = 36;

    private StateText() {
    }

    /** The text of {@code state}, one field per limit. */
    static String encode(long[] @Nullable [] state) {
        StringBuilder text = new StringBuilder(2 + state.length * 16).append(VERSION);
        for (long[] limitState : state) {
            text.append(LIMIT);
            if (limitState == null) {
                text.append(NONE);
                continue;
            }
            for (int i = 0; i < limitState.length; i++) {
                if (i > 0) {
                    text.append(VALUE);
                }
                text.append(Long.toString(limitState[i], RADIX));
            }
        }
        return text.toString();
    }

    /**
     * The state {@code text} holds; {@code null} for no text (a fresh key). A state of another shape than the
     * caller's policy is returned as it is: {@code Policy.apply} treats it as a fresh key.
     *
     * @throws IllegalStateException when the text is not of this format version
     */
    static long @Nullable [] @Nullable [] decode(@Nullable String text) {
        if (text == null) {
            return null;
        }
        if (text.isEmpty() || text.charAt(0) != VERSION) {
            throw new IllegalStateException("a counter value of another format (version "
                    + (text.isEmpty() ? "none" : "'" + text.charAt(0) + "'") + ", this store reads '" + VERSION + "')");
        }
        int limits = count(text, LIMIT, 1, text.length());
        if (limits < 1 || limits > Policy.MAX_LIMITS || text.length() < 2 || text.charAt(1) != LIMIT) {
            throw malformed(text);
        }
        long[] @Nullable [] state = new long[limits][];
        int start = 2;
        for (int i = 0; i < limits; i++) {
            int end = text.indexOf(LIMIT, start);
            end = end < 0 ? text.length() : end;
            state[i] = limitState(text, start, end);
            start = end + 1;
        }
        return state;
    }

    private static long @Nullable [] limitState(String text, int start, int end) {
        if (end - start == 1 && text.charAt(start) == NONE) {
            return null;
        }
        if (start == end) {
            return new long[0];
        }
        long[] values = new long[count(text, VALUE, start, end) + 1];
        int from = start;
        for (int i = 0; i < values.length; i++) {
            int to = i == values.length - 1 ? end : text.indexOf(VALUE, from);
            try {
                values[i] = Long.parseLong(text, from, to, RADIX);
            } catch (NumberFormatException e) {
                throw malformed(text);
            }
            from = to + 1;
        }
        return values;
    }

    private static int count(String text, char separator, int start, int end) {
        int count = 0;
        for (int i = start; i < end; i++) {
            if (text.charAt(i) == separator) {
                count++;
            }
        }
        return count;
    }

    private static IllegalStateException malformed(String text) {
        return new IllegalStateException("a counter value that is not a Sluice state: \""
                + (text.length() > 40 ? text.substring(0, 40) + "..." : text) + "\"");
    }
}
