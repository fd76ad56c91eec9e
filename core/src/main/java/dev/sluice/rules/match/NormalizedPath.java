package dev.sluice.rules.match;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/*
 * A rule on /api/login must not be dodged by writing the same resource another way. Servlet containers and JAX-RS
 * strip ";parameters" from each segment, decode percent-escapes once, and resolve "." and ".."; so do we, in that
 * order, and we also collapse empty segments ("//"). A "%2F" decodes to a separator here, which may make a path match
 * more rules than the application would route it to, never fewer: over-counting is the safe side. Malformed escapes
 * are kept literally. ".." never climbs above the root.
 */

/** A request path reduced to its segments, the way the application will route it. Immutable. */
public final class NormalizedPath {

    /** The segments in {@code [0, size)}; the array is the one normalizing filled, not a copy. */
    private final String[] segments;
    private final int size;

    private NormalizedPath(String[] segments, int size) {
        this.segments = segments;
        this.size = size;
    }

    /** Normalizes the raw (undecoded) request path; anything from {@code ?} or {@code #} on is ignored. */
    public static NormalizedPath of(@Nullable String rawPath) {
        String raw = rawPath == null ? "" : rawPath;
        int end = raw.length();
        int query = raw.indexOf('?');
        if (query >= 0) {
            end = query;
        }
        int fragment = raw.indexOf('#');
        if (fragment >= 0 && fragment < end) {
            end = fragment;
        }
        Segments segments = new Segments();
        int i = 0;
        while (i < end) {
            if (raw.charAt(i) == '/') {
                i++;
                continue;
            }
            int start = i;
            int semicolon = -1;
            boolean escaped = false;
            for (; i < end && raw.charAt(i) != '/'; i++) {
                char c = raw.charAt(i);
                if (c == ';' && semicolon < 0) {
                    semicolon = i;
                } else if (c == '%' && semicolon < 0) {
                    escaped = true;
                }
            }
            String segment = raw.substring(start, semicolon < 0 ? i : semicolon);
            addDecoded(segments, escaped ? percentDecode(segment) : segment);
        }
        return new NormalizedPath(segments.array, segments.size);
    }

    /** The segments found so far: what a list would be, without a list and a copy of it per request. */
    private static final class Segments {
        String[] array = new String[8];
        int size;
    }

    private static void addDecoded(Segments segments, String decoded) {
        if (decoded.indexOf('/') < 0) {
            addSegment(segments, decoded);
            return;
        }
        int start = 0;
        while (true) {
            int slash = decoded.indexOf('/', start);
            addSegment(segments, slash < 0 ? decoded.substring(start) : decoded.substring(start, slash));
            if (slash < 0) {
                return;
            }
            start = slash + 1;
        }
    }

    private static void addSegment(Segments segments, String segment) {
        if (segment.equals("..")) {
            if (segments.size > 0) {
                segments.size--;
            }
        } else if (!segment.isEmpty() && !segment.equals(".")) {
            if (segments.size == segments.array.length) {
                segments.array = Arrays.copyOf(segments.array, 2 * segments.size);
            }
            segments.array[segments.size++] = segment;
        }
    }

    /** Decodes {@code %XX} escapes as UTF-8; an escape that is not two hex digits stays as written. */
    private static String percentDecode(String segment) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(segment.length());
        int i = 0;
        while (i < segment.length()) {
            int high = segment.charAt(i) == '%' && i + 2 < segment.length()
                    ? HexDigit.value(segment.charAt(i + 1)) : -1;
            int low = high >= 0 ? HexDigit.value(segment.charAt(i + 2)) : -1;
            if (low >= 0) {
                bytes.write(high * 16 + low);
                i += 3;
            } else if (segment.charAt(i) < 0x80) {
                bytes.write(segment.charAt(i));
                i++;
            } else {
                int next = i + Character.charCount(segment.codePointAt(i));
                byte[] literal = segment.substring(i, next).getBytes(StandardCharsets.UTF_8);
                bytes.write(literal, 0, literal.length);
                i = next;
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    public int size() {
        return size;
    }

    public String segment(int index) {
        return segments[Objects.checkIndex(index, size)];
    }

    @Override
    public String toString() {
        return "/" + String.join("/", Arrays.asList(segments).subList(0, size));
    }
}
