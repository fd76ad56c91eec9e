package dev.sluice.rules.file;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;

/*
 * Structural mutations work on a small mutable JSON tree of the seed: objects keep their members as a list, so a field
 * can be duplicated, and numbers (and anything else that is written verbatim) are Raw text, so "1e309", "-0", "NaN" or
 * ten thousand "[" can be put where a value was. The tree is then rendered, compactly or indented so that positions
 * vary, and the byte mutations run over its UTF-8 bytes: they produce malformed JSON and malformed UTF-8.
 */

/**
 * Turns valid rules files into fuzz cases: each case is a seed file with one to three mutations, structural (on the
 * JSON tree) and byte-level (on the encoded file). A case depends only on the seed files and the random it is given,
 * so {@link #randomFor(long, int)} makes every case of a run reproducible from the run's seed and the case's index.
 */
final class RulesMutator {

    /** The mutations; the first ones change the JSON tree, the others the bytes of the rendered file. */
    enum Kind {
        REPLACE_VALUE, SWAP_VALUE, SPLICE_SAME_FIELD, DELETE_MEMBER, DUPLICATE_MEMBER, RENAME_FIELD, ADD_FIELD,
        NEST_DEEPLY,
        FLIP_BIT, INSERT_BYTES, DELETE_BYTES, DUPLICATE_BYTES, TRUNCATE, INSERT_UNICODE, INSERT_LONG_RUN;

        boolean structural() {
            return ordinal() <= NEST_DEEPLY.ordinal();
        }
    }

    /** A fuzz case: the file's bytes and what was done to the seed, for messages. */
    record Case(byte[] content, List<String> mutations) {
    }

    /** A value written as is: numbers, and tokens that are not JSON at all. */
    private record Raw(String text) {
    }

    private record Member(String name, Object value) {
    }

    private record Obj(List<Member> members) {
    }

    private record Arr(List<Object> elements) {
    }

    /** A place holding a value: a member of an object or an element of an array (or the document's holder). */
    private record Slot(Object container, int index, String path) {

        Object get() {
            return container instanceof Obj o ? o.members().get(index).value()
                    : ((Arr) container).elements().get(index);
        }

        void set(Object value) {
            if (container instanceof Obj o) {
                o.members().set(index, new Member(o.members().get(index).name(), value));
            } else {
                ((Arr) container).elements().set(index, value);
            }
        }
    }

    private static final JsonFactory FACTORY = new JsonFactory();
    private static final String LONG_TEXT = "a".repeat(100_000);
    private static final Raw NULL = new Raw("null");

    /** NUL, a BOM, lone surrogates, overlong and truncated sequences, beyond U+10FFFF, and odd but valid characters. */
    private static final byte[][] ODD_SEQUENCES = {
        {0}, {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
        {(byte) 0xED, (byte) 0xB0, (byte) 0x80}, {(byte) 0xC0, (byte) 0xAF}, {(byte) 0xFF}, {(byte) 0xE2, (byte) 0x82},
        {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xEF, (byte) 0xBF, (byte) 0xBF},
        "\u2028".getBytes(StandardCharsets.UTF_8), "\uD83D\uDE00".getBytes(StandardCharsets.UTF_8),
        "\u202E".getBytes(StandardCharsets.UTF_8), "\u0661".getBytes(StandardCharsets.UTF_8),
    };

    /** Values that are wrong for one field and right for another, of every JSON type. */
    private static final List<Object> VALUES = List.of(
            new Raw("0"), new Raw("-1"), new Raw("-0"), new Raw("1.5"), new Raw("1e309"), new Raw("-1e309"),
            new Raw("1e-400"), new Raw("2"), new Raw("600"), new Raw("4611686018427387903"),
            new Raw("4611686018427387904"), new Raw("9223372036854775807"), new Raw("9223372036854775808"),
            new Raw("-9223372036854775809"), new Raw("1" + "0".repeat(400)), new Raw("1" + "0".repeat(1_500)),
            new Raw("NaN"), new Raw("Infinity"), new Raw("-Infinity"), new Raw("0x10"), new Raw("01"),
            "", " ", "1 fortnight", "0s", "-1m", "1ns", "PT-1S", "PT0S", "366d", "367d", "999999999999999d",
            "999999999999999h", "999999999999999us", "P106752D", "PT2562047H47M16.854775807S", "PT9223372036854775807S",
            "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/", "/8", "256.1.1.1", "::ffff:10.0.0.0/95", "fe80::1%eth0",
            "[::1]", "1:2:3:4:5:6:7:8:9", "::\u0661", "/api/**/x", "api", "/a/{", "/a//b", "/a/{x}{y}", "/**", "/",
            "/a/%2e%2e", "bucket", "TOKEN-BUCKET", "Gcra", "composite", "header", "fallback", "shadow", "Forwarded",
            "X-Forwarded-For", "*.", "[::1]:8080", "api.example.com:99999999999", "\u0000", "\uFEFF", "\uD800",
            "\uDC00x", "\u00e9", "\uD83D\uDE00", "a\u2028b", LONG_TEXT,
            Boolean.TRUE, Boolean.FALSE, NULL, new Arr(List.of()), new Obj(List.of()),
            new Arr(List.of(new Obj(List.of()))), new Arr(List.of(NULL)));

    /** Field names that are not in any seed: typos, case and blank variants. */
    private static final List<String> EXTRA_NAMES = List.of("limts", "ID", "id ", "", "__proto__", "permits\u0000",
            "\uFEFFrules");

    private final List<String> seeds;
    private final List<String> fieldNames;
    private final Map<String, List<Object>> seedValues = new HashMap<>();

    /** Mutates these valid rules documents. */
    RulesMutator(List<String> seeds) {
        this.seeds = List.copyOf(seeds);
        TreeSet<String> names = new TreeSet<>(EXTRA_NAMES);
        for (String seed : seeds) {
            List<Slot> slots = new ArrayList<>();
            collectSlots(parse(seed), "$", slots);
            for (Slot slot : slots) {
                if (slot.container() instanceof Obj o) {
                    String name = o.members().get(slot.index()).name();
                    names.add(name);
                    seedValues.computeIfAbsent(name, n -> new ArrayList<>()).add(slot.get());
                }
            }
        }
        this.fieldNames = List.copyOf(names);
    }

    /** A random for case {@code index} of the run with {@code seed}, independent of every other case's. */
    static SplittableRandom randomFor(long seed, int index) {
        long h = seed ^ (index * 0x9E3779B97F4A7C15L);
        h = (h ^ (h >>> 33)) * 0xFF51AFD7ED558CCDL;
        h = (h ^ (h >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return new SplittableRandom(h ^ (h >>> 33));
    }

    /** One case: a random seed with one to three random mutations. */
    Case mutate(SplittableRandom random) {
        int count = random.nextInt(10) < 6 ? 1 : random.nextInt(2) + 2;
        List<Kind> kinds = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            kinds.add(Kind.values()[random.nextInt(Kind.values().length)]);
        }
        List<String> done = new ArrayList<>();
        Arr holder = new Arr(new ArrayList<>(List.of(parse(seeds.get(random.nextInt(seeds.size()))))));
        for (Kind kind : kinds) {
            if (kind.structural()) {
                done.add(kind + " " + mutateTree(kind, holder, random));
            }
        }
        StringBuilder text = new StringBuilder();
        render(holder.elements().get(0), random.nextBoolean() ? "\n" : "", text);
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        for (Kind kind : kinds) {
            if (!kind.structural()) {
                // The start of the file is a place of its own (a BOM, say), so it gets one mutation in eight.
                int position = random.nextInt(8) == 0 ? 0 : random.nextInt(bytes.length + 1);
                bytes = mutateBytes(kind, bytes, position, random);
                done.add(kind + " at byte " + position);
            }
        }
        return new Case(bytes, done);
    }

    private String mutateTree(Kind kind, Arr holder, SplittableRandom random) {
        List<Slot> slots = new ArrayList<>();
        collectSlots(holder, "", slots);
        Slot slot = slots.get(random.nextInt(slots.size()));
        switch (kind) {
            case REPLACE_VALUE -> {
                Object value = VALUES.get(random.nextInt(VALUES.size()));
                slot.set(copy(value));
                return slot.path() + " = " + abbreviate(value);
            }
            case SWAP_VALUE -> {
                Slot other = slots.get(random.nextInt(slots.size()));
                slot.set(copy(other.get()));
                return slot.path() + " = value of " + other.path();
            }
            case SPLICE_SAME_FIELD -> {
                // A value that some seed gives a field of this name: mostly valid files, in new combinations.
                List<Object> values = slot.container() instanceof Obj o
                        ? seedValues.get(o.members().get(slot.index()).name()) : null;
                if (values == null) {
                    return slot.path() + " (not a seed's field: nothing)";
                }
                Object value = values.get(random.nextInt(values.size()));
                slot.set(copy(value));
                return slot.path() + " = " + abbreviate(value);
            }
            case DELETE_MEMBER, DUPLICATE_MEMBER -> {
                if (slot.container() == holder) {
                    return "(root: nothing)";
                }
                List<?> list = slot.container() instanceof Obj o ? o.members() : ((Arr) slot.container()).elements();
                if (kind == Kind.DELETE_MEMBER) {
                    list.remove(slot.index());
                } else {
                    addCopy(list, slot.index());
                }
                return slot.path();
            }
            case RENAME_FIELD -> {
                if (!(slot.container() instanceof Obj o)) {
                    return slot.path() + " (an element: nothing)";
                }
                String name = fieldNames.get(random.nextInt(fieldNames.size()));
                o.members().set(slot.index(), new Member(name, slot.get()));
                return slot.path() + " -> \"" + name + "\"";
            }
            case ADD_FIELD -> {
                List<Obj> objects = new ArrayList<>();
                for (Slot s : slots) {
                    if (s.get() instanceof Obj o) {
                        objects.add(o);
                    }
                }
                if (objects.isEmpty()) {
                    return "(no object: nothing)";
                }
                Obj target = objects.get(random.nextInt(objects.size()));
                String name = fieldNames.get(random.nextInt(fieldNames.size()));
                Object value = random.nextBoolean() ? VALUES.get(random.nextInt(VALUES.size()))
                        : slots.get(random.nextInt(slots.size())).get();
                target.members().add(random.nextInt(target.members().size() + 1), new Member(name, copy(value)));
                return "\"" + name + "\": " + abbreviate(value);
            }
            default -> {
                int depth = List.of(63, 64, 65, 1_000, 10_000).get(random.nextInt(5));
                boolean balanced = random.nextBoolean();
                String open = random.nextBoolean() ? "[" : "{\"a\":";
                String close = open.equals("[") ? "]" : "}";
                slot.set(new Raw(open.repeat(depth) + (balanced ? "1" + close.repeat(depth) : "")));
                return slot.path() + " = " + depth + " x " + open + (balanced ? " balanced" : " unclosed");
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static void addCopy(List<?> list, int index) {
        ((List<Object>) list).add(index, copy(list.get(index)));
    }

    private static byte[] mutateBytes(Kind kind, byte[] in, int position, SplittableRandom random) {
        if (in.length == 0 && (kind == Kind.FLIP_BIT || kind == Kind.DUPLICATE_BYTES)) {
            return in;
        }
        return switch (kind) {
            case FLIP_BIT -> {
                byte[] out = in.clone();
                out[Math.min(position, in.length - 1)] ^= (byte) (1 << random.nextInt(8));
                yield out;
            }
            case INSERT_BYTES -> {
                byte[] inserted = new byte[random.nextInt(8) + 1];
                String syntax = "{}[]:,\"\\ 0-.e\n\r\t";
                for (int i = 0; i < inserted.length; i++) {
                    inserted[i] = random.nextBoolean() ? (byte) random.nextInt(256)
                            : (byte) syntax.charAt(random.nextInt(syntax.length()));
                }
                yield splice(in, position, 0, inserted);
            }
            case DELETE_BYTES -> splice(in, position, Math.min(random.nextInt(16) + 1, in.length - position),
                    new byte[0]);
            case DUPLICATE_BYTES -> {
                int from = random.nextInt(in.length);
                yield splice(in, position, 0, Arrays.copyOfRange(in, from, Math.min(in.length,
                        from + random.nextInt(64) + 1)));
            }
            case TRUNCATE -> Arrays.copyOf(in, position);
            case INSERT_UNICODE -> splice(in, position, 0, ODD_SEQUENCES[random.nextInt(ODD_SEQUENCES.length)]);
            default -> splice(in, position, 0, (random.nextBoolean() ? LONG_TEXT : "[".repeat(10_000))
                    .getBytes(StandardCharsets.UTF_8));
        };
    }

    private static byte[] splice(byte[] in, int position, int removed, byte[] inserted) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(in.length + inserted.length);
        out.write(in, 0, position);
        out.writeBytes(inserted);
        out.write(in, position + removed, in.length - position - removed);
        return out.toByteArray();
    }

    private static Object parse(String json) {
        try (JsonParser parser = FACTORY.createParser(json)) {
            parser.nextToken();
            return read(parser);
        } catch (IOException e) {
            throw new UncheckedIOException("a seed is not JSON", e);
        }
    }

    private static Object read(JsonParser parser) throws IOException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.START_OBJECT) {
            List<Member> members = new ArrayList<>();
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                parser.nextToken();
                members.add(new Member(name, read(parser)));
            }
            return new Obj(members);
        }
        if (token == JsonToken.START_ARRAY) {
            List<Object> elements = new ArrayList<>();
            while (parser.nextToken() != JsonToken.END_ARRAY) {
                elements.add(read(parser));
            }
            return new Arr(elements);
        }
        return token == JsonToken.VALUE_STRING ? parser.getText() : new Raw(parser.getText());
    }

    private static Object copy(Object value) {
        if (value instanceof Obj o) {
            List<Member> members = new ArrayList<>();
            o.members().forEach(m -> members.add(new Member(m.name(), copy(m.value()))));
            return new Obj(members);
        }
        if (value instanceof Arr a) {
            List<Object> elements = new ArrayList<>();
            a.elements().forEach(e -> elements.add(copy(e)));
            return new Arr(elements);
        }
        return value;
    }

    private static void collectSlots(Object value, String path, List<Slot> slots) {
        if (value instanceof Obj o) {
            for (int i = 0; i < o.members().size(); i++) {
                Member member = o.members().get(i);
                String memberPath = path + "." + member.name();
                slots.add(new Slot(o, i, memberPath));
                collectSlots(member.value(), memberPath, slots);
            }
        } else if (value instanceof Arr a) {
            for (int i = 0; i < a.elements().size(); i++) {
                String elementPath = path.isEmpty() ? "$" : path + "[" + i + "]";
                slots.add(new Slot(a, i, elementPath));
                collectSlots(a.elements().get(i), elementPath, slots);
            }
        }
    }

    /** Writes {@code value} as JSON; {@code newline} is "\n" plus the current indentation, or "" for one line. */
    private static void render(Object value, String newline, StringBuilder out) {
        String inner = newline.isEmpty() ? "" : newline + "  ";
        if (value instanceof Obj o) {
            out.append('{');
            for (int i = 0; i < o.members().size(); i++) {
                out.append(i == 0 ? "" : ",").append(inner);
                quote(o.members().get(i).name(), out);
                out.append(": ");
                render(o.members().get(i).value(), inner, out);
            }
            out.append(o.members().isEmpty() ? "" : newline).append('}');
        } else if (value instanceof Arr a) {
            out.append('[');
            for (int i = 0; i < a.elements().size(); i++) {
                out.append(i == 0 ? "" : ",").append(inner);
                render(a.elements().get(i), inner, out);
            }
            out.append(a.elements().isEmpty() ? "" : newline).append(']');
        } else if (value instanceof String s) {
            quote(s, out);
        } else if (value instanceof Boolean b) {
            out.append(b);
        } else {
            out.append(((Raw) value).text());
        }
    }

    /** A JSON string; control characters and lone surrogates escaped, so the text stays encodable. */
    private static void quote(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean paired = Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))
                    || Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(text.charAt(i - 1));
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || Character.isSurrogate(c) && !paired) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }

    private static String abbreviate(Object value) {
        StringBuilder text = new StringBuilder();
        render(value, "", text);
        return text.length() > 40 ? text.substring(0, 37) + "..." : text.toString();
    }
}
