package dev.sluice.rules.match;

/** Reads ASCII hex digits. Stateless. */
final class HexDigit {

    private HexDigit() {
    }

    /**
     * The value of an ASCII hex digit, or -1. Unlike {@link Character#digit(char, int)}, which also takes non-ASCII
     * digits and letters (Arabic-Indic digits, fullwidth letters) that no IP literal or percent-escape contains.
     */
    static int value(char c) {
        return c < 0x80 ? Character.digit(c, 16) : -1;
    }
}
