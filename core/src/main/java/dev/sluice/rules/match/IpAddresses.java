package dev.sluice.rules.match;

import org.jspecify.annotations.Nullable;

/*
 * IP literals are parsed here by hand rather than with InetAddress.getByName, because getByName resolves anything
 * that is not a literal through DNS: a header value such as "evil.example" would make every request wait for a
 * lookup the client controls. This parser accepts only literals, bounds its work by the input's length (which callers
 * cap), and returns null for anything else.
 */

/** Parses IPv4 and IPv6 literals into bytes, and formats them canonically. Stateless and thread-safe. */
public final class IpAddresses {

    /** Longer than any IPv6 literal with an embedded IPv4 address and a zone. */
    static final int MAX_LITERAL_LENGTH = 64;

    private IpAddresses() {
    }

    /**
     * The address's bytes: 4 for IPv4 (including IPv4-mapped IPv6, which is normalized to IPv4), 16 for IPv6; null
     * when {@code text} is not an IP literal. Square brackets and an IPv6 zone ({@code %eth0}) are accepted and
     * dropped.
     */
    public static byte @Nullable [] parse(@Nullable String text) {
        if (text == null || text.isEmpty() || text.length() > MAX_LITERAL_LENGTH) {
            return null;
        }
        String literal = text;
        if (literal.startsWith("[") && literal.endsWith("]")) {
            literal = literal.substring(1, literal.length() - 1);
        }
        int zone = literal.indexOf('%');
        if (zone >= 0) {
            literal = literal.substring(0, zone);
        }
        if (literal.indexOf(':') < 0) {
            return parseIpv4(literal);
        }
        byte[] bytes = parseIpv6(literal);
        return bytes == null ? null : unmapIpv4(bytes);
    }

    /** The canonical text of an address: dotted IPv4, or IPv6 in RFC 5952 form (lower case, longest zero run "::"). */
    static String format(byte[] bytes) {
        if (bytes.length == 4) {
            return (bytes[0] & 0xff) + "." + (bytes[1] & 0xff) + "." + (bytes[2] & 0xff) + "." + (bytes[3] & 0xff);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder text = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append(i == 0 ? "::" : ":");
                i += bestLength - 1;
                continue;
            }
            text.append(Integer.toHexString(groups[i]));
            if (i < 7) {
                text.append(':');
            }
        }
        return text.toString();
    }

    /** The canonical text of {@code text} if it is an IP literal; null otherwise. */
    static @Nullable String canonical(String text) {
        byte[] bytes = parse(text);
        return bytes == null ? null : format(bytes);
    }

    private static byte @Nullable [] parseIpv4(String text) {
        byte[] bytes = new byte[4];
        int part = 0;
        int value = -1;
        int digits = 0;
        for (int i = 0; i <= text.length(); i++) {
            char c = i < text.length() ? text.charAt(i) : '.';
            if (c == '.') {
                if (value < 0 || part == 4) {
                    return null;
                }
                bytes[part++] = (byte) value;
                value = -1;
                digits = 0;
            } else if (c >= '0' && c <= '9') {
                if (digits == 3 || (digits > 0 && value == 0)) {
                    return null; // over three digits, or a leading zero (ambiguous octal notation)
                }
                value = (value < 0 ? 0 : value * 10) + (c - '0');
                digits++;
                if (value > 255) {
                    return null;
                }
            } else {
                return null;
            }
        }
        return part == 4 ? bytes : null;
    }

    private static byte @Nullable [] parseIpv6(String text) {
        int doubleColon = text.indexOf("::");
        if (doubleColon >= 0 && text.indexOf("::", doubleColon + 1) >= 0) {
            return null;
        }
        byte[] bytes = new byte[16];
        if (doubleColon < 0) {
            return parseGroups(text, bytes, 0, 16) == 16 ? bytes : null;
        }
        String head = text.substring(0, doubleColon);
        String tail = text.substring(doubleColon + 2);
        byte[] tailBytes = new byte[16];
        int headLength = head.isEmpty() ? 0 : parseGroups(head, bytes, 0, 14);
        int tailLength = tail.isEmpty() ? 0 : parseGroups(tail, tailBytes, 0, 14);
        if (headLength < 0 || tailLength < 0 || headLength + tailLength > 14) {
            return null;
        }
        System.arraycopy(tailBytes, 0, bytes, 16 - tailLength, tailLength);
        return bytes;
    }

    /** Parses colon-separated hex groups (the last may be dotted IPv4) into {@code out}; the byte count, or -1. */
    private static int parseGroups(String text, byte[] out, int offset, int maxBytes) {
        int position = offset;
        int start = 0;
        while (true) {
            int end = text.indexOf(':', start);
            String group = end < 0 ? text.substring(start) : text.substring(start, end);
            if (end < 0 && group.indexOf('.') >= 0) {
                byte[] ipv4 = parseIpv4(group);
                if (ipv4 == null || position + 4 > maxBytes) {
                    return -1;
                }
                System.arraycopy(ipv4, 0, out, position, 4);
                return position + 4 - offset;
            }
            if (group.isEmpty() || group.length() > 4 || position + 2 > maxBytes) {
                return -1;
            }
            int value = 0;
            for (int i = 0; i < group.length(); i++) {
                char c = group.charAt(i);
                // "::" followed by an Arabic-Indic one is not "::1".
                int digit = HexDigit.value(c);
                if (digit < 0) {
                    return -1;
                }
                value = value * 16 + digit;
            }
            out[position++] = (byte) (value >> 8);
            out[position++] = (byte) value;
            if (end < 0) {
                return position - offset;
            }
            start = end + 1;
        }
    }

    private static byte[] unmapIpv4(byte[] bytes) {
        for (int i = 0; i < 10; i++) {
            if (bytes[i] != 0) {
                return bytes;
            }
        }
        if (bytes[10] != (byte) 0xff || bytes[11] != (byte) 0xff) {
            return bytes;
        }
        return new byte[] {bytes[12], bytes[13], bytes[14], bytes[15]};
    }
}
