package dev.sluice.rules;

import dev.sluice.rules.match.ClientAddresses;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What a rule counts separately: the request attribute whose value becomes the counter key.
 *
 * <p>Keys in compact text form, as used by annotations: {@code ip}, {@code principal}, {@code constant},
 * {@code header:X-Api-Key}, {@code cookie:session}, {@code query:apiKey}, {@code path:id}; a composite is a list of
 * these. Immutable and thread-safe.
 *
 * @param kind the attribute
 * @param name the header, cookie, query or path parameter name; empty for the other kinds
 * @param parts for {@link Kind#COMPOSITE}, the keys combined (at least two); empty otherwise
 */
public record KeySpec(Kind kind, String name, List<KeySpec> parts) {

    /** The request attributes a key can be made of. */
    public enum Kind {
        /** The client's IP address, through trusted proxies (see {@link ClientAddresses}). */
        IP(false),
        /** The first value of a request header (names are case-insensitive). */
        HEADER(true),
        /** A cookie's value. */
        COOKIE(true),
        /** The first value of a query parameter. */
        QUERY(true),
        /** The authenticated principal's name. */
        PRINCIPAL(false),
        /** A path parameter: captured by the rule's own pattern ({@code /users/{id}}) or matched by the adapter. */
        PATH(true),
        /** The same key for every request: one global counter. */
        CONSTANT(false),
        /** Several keys joined; absent when any part is absent. */
        COMPOSITE(false);

        private final boolean named;

        Kind(boolean named) {
            this.named = named;
        }

        /** Whether keys of this kind need a name. */
        public boolean named() {
            return named;
        }

        /** The lower-case name used in rules files and annotations, such as {@code header}. */
        public String text() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Validates the shape: a name exactly for the named kinds, parts exactly for composites (not nested). */
    public KeySpec {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        parts = List.copyOf(parts);
        if (kind.named() == name.isBlank()) {
            throw new IllegalArgumentException(kind.named()
                    ? "key type " + kind.text() + " needs a name, such as \"" + kind.text() + ":X-Api-Key\""
                    : "key type " + kind.text() + " takes no name, got \"" + name + "\"");
        }
        if ((kind == Kind.COMPOSITE) != !parts.isEmpty()) {
            throw new IllegalArgumentException(kind == Kind.COMPOSITE
                    ? "a composite key needs at least two parts" : "only a composite key has parts");
        }
        if (kind == Kind.COMPOSITE && (parts.size() < 2 || parts.stream().anyMatch(p -> p.kind == Kind.COMPOSITE))) {
            throw new IllegalArgumentException("a composite key needs at least two parts, none of them composite");
        }
    }

    /** The client's IP address. */
    public static KeySpec ip() {
        return new KeySpec(Kind.IP, "", List.of());
    }

    /** The authenticated principal's name. */
    public static KeySpec principal() {
        return new KeySpec(Kind.PRINCIPAL, "", List.of());
    }

    /** One counter for all requests. */
    public static KeySpec constant() {
        return new KeySpec(Kind.CONSTANT, "", List.of());
    }

    /** A named attribute: {@code of(Kind.HEADER, "X-Api-Key")}. */
    public static KeySpec of(Kind kind, String name) {
        return new KeySpec(kind, name, List.of());
    }

    /** Several keys combined. */
    public static KeySpec composite(KeySpec... parts) {
        return new KeySpec(Kind.COMPOSITE, "", List.of(parts));
    }

    /**
     * Parses the compact form ({@code ip}, {@code header:X-Api-Key}, ...) of one key; throws
     * {@link IllegalArgumentException} naming the text and the kinds there are.
     */
    public static KeySpec parse(String text) {
        int colon = text.indexOf(':');
        String kindText = colon < 0 ? text : text.substring(0, colon);
        Kind kind = kindOf(kindText).filter(k -> k != Kind.COMPOSITE).orElseThrow(
                () -> new IllegalArgumentException("unknown key type \"" + kindText + "\"; expected one of "
                        + Arrays.stream(Kind.values()).filter(k -> k != Kind.COMPOSITE).map(Kind::text)
                                .collect(Collectors.joining(", "))));
        return new KeySpec(kind, colon < 0 ? "" : text.substring(colon + 1), List.of());
    }

    /** The kind written as {@code text} (case-insensitive); empty for none. */
    public static Optional<Kind> kindOf(String text) {
        for (Kind kind : Kind.values()) {
            if (kind.text().equalsIgnoreCase(text)) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        if (kind == Kind.COMPOSITE) {
            return parts.toString();
        }
        return kind.named() ? kind.text() + ":" + name : kind.text();
    }
}
