package dev.sluice.service;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * The tokens of the limiter service: what any instance needs to release a permit (the limit's id, the key or, when
 * long, its hash ({@link #keyOf}), the store key and the store's permit id) or to settle a reservation (the same with
 * the estimate, the store's reservation id, a nonce that names the reservation alone and the end of its lifetime),
 * signed with HMAC-SHA256 under the service's signing key, so that a token altered or made up is refused, and an
 * instance with the same key releases a permit or settles a reservation another one granted. Format:
 * {@code base64url(payload) "." base64url(mac)}, the payload a kind byte (1 a permit, 2 a reservation: one is never
 * taken for the other) then length-prefixed UTF-8 fields (and longs). Immutable and thread-safe. See
 * {@code docs/design/concurrency.md} and {@code docs/design/costs.md}.
 */
final class Tokens {

    /** The shortest signing key taken: 32 bytes, HMAC-SHA256's block of entropy. */
    static final int MIN_KEY_BYTES = 32;

    private static final String ALGORITHM = "HmacSHA256";
    private static final byte PERMIT = 1;
    private static final byte RESERVATION = 2;
    private static final int NONCE_BYTES = 16;
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();
    private static final int MAX_TOKEN_CHARS = 4096;
    private static final int MAX_KEY_CHARS = 256;

    private final SecretKeySpec key;
    private final SecureRandom random = new SecureRandom();

    Tokens(byte[] signingKey) {
        if (signingKey.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("the permit signing key must have at least " + MIN_KEY_BYTES
                    + " bytes, got " + signingKey.length);
        }
        this.key = new SecretKeySpec(signingKey.clone(), ALGORITHM);
    }

    /** A permit as its token says: the store's permit id is empty for a grant that holds no counter. */
    record Permit(String id, Optional<String> key, String storeKey, Optional<String> storePermit) {
    }

    /**
     * A reservation as its token says: the store's reservation id is empty for a grant that counted nothing (a failure
     * policy's), the nonce names this reservation alone (its settle's mark), and {@code expiresAtNanos} (the signing
     * service's clock) ends the time in which its settle may give a difference back.
     */
    record Reservation(String id, Optional<String> key, String storeKey, long estimate,
                       Optional<String> storeReservation, String nonce, long expiresAtNanos) {
    }

    /** What a token's fields are written with. */
    @FunctionalInterface
    private interface Fields {
        void write(DataOutputStream out) throws IOException;
    }

    /** What a token's fields are read with. */
    @FunctionalInterface
    private interface Reading<T> {
        T read(DataInputStream in) throws IOException;
    }

    String sign(Permit permit) {
        return sign(PERMIT, out -> {
            out.writeUTF(permit.id());
            writeOptional(out, permit.key());
            out.writeUTF(permit.storeKey());
            writeOptional(out, permit.storePermit());
        });
    }

    /** The token of a new reservation with these fields, and a nonce of its own. */
    String sign(String id, Optional<String> key, String storeKey, long estimate, Optional<String> storeReservation,
                long expiresAtNanos) {
        byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        return sign(RESERVATION, out -> {
            out.writeUTF(id);
            writeOptional(out, key);
            out.writeUTF(storeKey);
            out.writeLong(estimate);
            writeOptional(out, storeReservation);
            out.writeUTF(ENCODER.encodeToString(nonce));
            out.writeLong(expiresAtNanos);
        });
    }

    private String sign(byte kind, Fields fields) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(kind);
            fields.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] payload = bytes.toByteArray();
        return ENCODER.encodeToString(payload) + "." + ENCODER.encodeToString(mac(payload));
    }

    /**
     * The permit of a token this service signed; empty for none, and for a token malformed, altered or signed with
     * another key.
     */
    Optional<Permit> verify(@Nullable String token) {
        return verify(token, PERMIT, in -> new Permit(in.readUTF(), readOptional(in), in.readUTF(), readOptional(in)));
    }

    /**
     * The reservation of a token this service signed; empty for none, and for a token malformed, altered, signed with
     * another key, or of a permit.
     */
    Optional<Reservation> verifyReservation(@Nullable String token) {
        return verify(token, RESERVATION, in -> new Reservation(in.readUTF(), readOptional(in), in.readUTF(),
                in.readLong(), readOptional(in), in.readUTF(), in.readLong()));
    }

    private <T> Optional<T> verify(@Nullable String token, byte kind, Reading<T> fields) {
        int dot = token == null ? -1 : token.indexOf('.');
        if (token == null || token.length() > MAX_TOKEN_CHARS || dot < 0) {
            return Optional.empty();
        }
        byte[] payload;
        byte[] mac;
        try {
            payload = DECODER.decode(token.substring(0, dot));
            mac = DECODER.decode(token.substring(dot + 1));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        if (!MessageDigest.isEqual(mac, mac(payload))) {
            return Optional.empty();
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload))) {
            if (in.readByte() != kind) {
                return Optional.empty();
            }
            T read = fields.read(in);
            return in.available() == 0 ? Optional.of(read) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private byte[] mac(byte[] payload) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac.doFinal(payload);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has " + ALGORITHM, e);
        }
    }

    private static void writeOptional(DataOutputStream out, Optional<String> value) throws IOException {
        out.writeBoolean(value.isPresent());
        out.writeUTF(value.orElse(""));
    }

    private static Optional<String> readOptional(DataInputStream in) throws IOException {
        boolean present = in.readBoolean();
        String value = in.readUTF();
        return present ? Optional.of(value) : Optional.empty();
    }

    /**
     * The key as a token carries it: as it is, or past {@value #MAX_KEY_CHARS} characters its SHA-256 after a
     * {@code /}, which no key in a path holds; so that a token stays short enough for a header (and for
     * {@link #verify}) however long the key, and still names that key alone.
     */
    static Optional<String> keyOf(@Nullable String key) {
        if (key == null || key.length() <= MAX_KEY_CHARS) {
            return Optional.ofNullable(key);
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return Optional.of("/" + ENCODER.encodeToString(digest));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** The bytes of a signing key given as text. */
    static byte[] keyBytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
