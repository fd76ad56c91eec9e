package dev.sluice.rules;

/**
 * A value that a rule's builder or a pattern's parser rejects, with what was expected instead; the message reads
 * {@code cost: expected an integer between 1 and 10, got 11}.
 *
 * <p>The rules file reader reports it at the JSON value the field came from, and shows that value as the file spells
 * it ({@code "1000d"} rather than the parsed {@code PT24000H}): so one check, made by the builder, gives as precise a
 * message in the file as in code.
 */
public final class InvalidValueException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String field;
    private final String member;
    private final String expectation;

    /**
     * @param field the field as the rules file names it, such as {@code maxDelay}
     * @param expectation what the field takes, such as {@code an integer between 1 and 10}
     * @param shownValue the rejected value for the message, strings {@linkplain #quoted quoted}
     */
    InvalidValueException(String field, String expectation, String shownValue) {
        this(field, "", expectation, shownValue);
    }

    /**
     * A value of member {@code member} of the object {@code field} (such as {@code max} of {@code estimate}); the
     * message names it {@code estimate.max}.
     */
    InvalidValueException(String field, String member, String expectation, String shownValue) {
        super(field + (member.isEmpty() ? "" : "." + member) + ": expected " + expectation + ", got " + shownValue);
        this.field = field;
        this.member = member;
        this.expectation = expectation;
    }

    /** {@code text} in double quotes, as messages show a string value. */
    public static String quoted(String text) {
        return "\"" + text + "\"";
    }

    /** The field as the rules file names it. */
    public String field() {
        return field;
    }

    /** The member of the object {@link #field()} at fault; empty when the whole field is. */
    public String member() {
        return member;
    }

    /** What the field takes, as in "expected ...". */
    public String expectation() {
        return expectation;
    }
}
