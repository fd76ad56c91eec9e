package dev.sluice.hazelcast.internal.cluster;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/*
 * Why a keyed hash, and why these pieces. Hazelcast Community Edition has neither TLS nor authentication: whoever
 * reaches a member's port under the cluster's name reads every map. Counter keys hold client data (addresses, API keys,
 * user names), so the store never writes one: a counter key becomes its rule's scope (`<id>@<fingerprint>|`, rule
 * ids and limits only, which the per-rule figures need) and a 128-bit SipHash-2-4 of the whole key under a key
 * derived from the secret, every instance computing the same one. SipHash because it is on the request path: a few
 * dozen nanoseconds for a counter key, where an HMAC-SHA-256 costs a Mac and a byte copy. What must be read back (an
 * override's JSON naming its key, the console's snapshots with their top keys) is sealed instead, AES-256-GCM under a
 * second derived key, bound to its entry's key: a reader without the secret learns nothing from it, and an entry it
 * writes or moves does not open, so it is skipped. The fingerprint, kept in the cluster, tells instances hashing with
 * different secrets apart (they would count one client under two keys); it is an HMAC under the secret, which reveals
 * no more about the secret than any hashed key of a known value does.
 */

/**
 * The secret an application's instances share to keep client data out of the cluster's maps: counter keys hashed
 * ({@link #mapKey}), texts that name keys sealed ({@link #seal}, {@link #open}), and the fingerprint that tells
 * instances with different secrets apart. Either configured, or derived from the counters map's name (the same on
 * every instance with no secret configured, and no secret from anyone who knows the name). Immutable and thread-safe.
 * See {@code docs/cluster.md}, the cluster's boundary.
 */
public final class KeySecret {

    /** The fewest characters of a configured secret. */
    public static final int MIN_LENGTH = 16;

    /** What the fingerprint starts with: the scheme, so that instances of another scheme count as another secret. */
    private static final String SCHEME = "siphash-2-4-128/aes-256-gcm:";
    /** What a sealed text starts with. */
    private static final String SEALED = "s1.";
    private static final String DERIVED_PREFIX = "sluice-derived-key-secret|";
    private static final int HASH_CHARS = 22;
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final char[] BASE64URL =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".toCharArray();
    private static final SecureRandom NONCES = new SecureRandom();

    private final boolean configured;
    private final long k0;
    private final long k1;
    private final SecretKeySpec sealing;
    private final String fingerprint;

    private KeySecret(byte[] secret, boolean configured) {
        this.configured = configured;
        ByteBuffer hashKey = ByteBuffer.wrap(derive(secret, "counter keys")).order(ByteOrder.LITTLE_ENDIAN);
        this.k0 = hashKey.getLong();
        this.k1 = hashKey.getLong();
        this.sealing = new SecretKeySpec(derive(secret, "sealed entries"), "AES");
        this.fingerprint = SCHEME + HexFormat.of().formatHex(derive(secret, "fingerprint"), 0, 16);
    }

    /**
     * A secret given by the operator.
     *
     * @throws IllegalArgumentException for fewer than {@value #MIN_LENGTH} characters (the message does not quote it)
     */
    public static KeySecret configured(String secret) {
        if (secret.length() < MIN_LENGTH) {
            throw new IllegalArgumentException("a key secret must have at least " + MIN_LENGTH + " characters, got "
                    + secret.length());
        }
        return new KeySecret(secret.getBytes(StandardCharsets.UTF_8), true);
    }

    /** The secret of instances that configure none: derived from the counters map's name, so no secret at all. */
    public static KeySecret derived(String mapName) {
        return new KeySecret((DERIVED_PREFIX + mapName).getBytes(StandardCharsets.UTF_8), false);
    }

    /** Whether the secret was configured (else derived from the map's name). */
    public boolean configured() {
        return configured;
    }

    /** What instances of this secret keep in the cluster to find one with another: the scheme and an HMAC. */
    public String fingerprint() {
        return fingerprint;
    }

    /**
     * The map key of counter key {@code key}: its rule's scope {@code <id>@<fingerprint>|} when it has one, followed by
     * 22 base64url characters of its hash (the whole key's); the hash alone for a key of any other shape.
     */
    public String mapKey(String key) {
        int scope = scopeLength(key);
        StringBuilder mapKey = new StringBuilder(scope + HASH_CHARS).append(key, 0, scope);
        appendHash(key, mapKey);
        return mapKey.toString();
    }

    /** The 22 base64url characters of the hash of {@code text}. */
    public String hash(String text) {
        StringBuilder hash = new StringBuilder(HASH_CHARS);
        appendHash(text, hash);
        return hash.toString();
    }

    private void appendHash(String text, StringBuilder into) {
        long[] hash = SipHash.hash128(k0, k1, text);
        // 128 bits, little-endian as SipHash outputs them, six at a time: 21 characters of 6 bits and one of 2.
        for (int bit = 0; bit < 128; bit += 6) {
            into.append(BASE64URL[(int) (bits(hash, bit) & 0x3f)]);
        }
    }

    /** The bits of the 128-bit value {@code hash} from bit {@code from} (0 the lowest) upwards. */
    private static long bits(long[] hash, int from) {
        if (from >= 64) {
            return hash[1] >>> (from - 64);
        }
        long low = hash[0] >>> from;
        return from > 58 ? low | hash[1] << (64 - from) : low;
    }

    /**
     * The length of {@code key}'s rule scope, {@code <id>@<12 hex digits>|}, as {@code dev.sluice.rules.Rule} writes
     * it (an id of letters, digits and {@code ._:#$-}); 0 for a key without one.
     */
    private static int scopeLength(String key) {
        int at = key.indexOf('@');
        int bar = at + 13;
        if (at < 1 || key.length() <= bar || key.charAt(bar) != '|') {
            return 0;
        }
        for (int i = 0; i < at; i++) {
            char c = key.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 128) && "._:#$-".indexOf(c) < 0) {
                return 0;
            }
        }
        for (int i = at + 1; i < bar; i++) {
            char c = key.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return 0;
            }
        }
        return bar + 1;
    }

    /** {@code text} sealed for the entry {@code entryKey}: only this secret opens it, and only for that entry. */
    public String seal(String entryKey, String text) {
        byte[] nonce = new byte[NONCE_BYTES];
        NONCES.nextBytes(nonce);
        try {
            byte[] sealed = cipher(Cipher.ENCRYPT_MODE, nonce, entryKey).doFinal(text.getBytes(StandardCharsets.UTF_8));
            return SEALED + Base64.getUrlEncoder().withoutPadding().encodeToString(ByteBuffer
                    .allocate(NONCE_BYTES + sealed.length).put(nonce).put(sealed).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java platform has AES-GCM", e);
        }
    }

    /**
     * The text {@link #seal} sealed for {@code entryKey}; empty for a value it did not seal under this secret for that
     * entry (another secret's, a plain text, a forgery).
     */
    public Optional<String> open(String entryKey, String sealed) {
        if (!sealed.startsWith(SEALED)) {
            return Optional.empty();
        }
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(sealed.substring(SEALED.length()));
        } catch (IllegalArgumentException notBase64) {
            return Optional.empty();
        }
        if (bytes.length < NONCE_BYTES + TAG_BITS / 8) {
            return Optional.empty();
        }
        try {
            byte[] nonce = Arrays.copyOf(bytes, NONCE_BYTES);
            byte[] text = cipher(Cipher.DECRYPT_MODE, nonce, entryKey).doFinal(bytes, NONCE_BYTES,
                    bytes.length - NONCE_BYTES);
            return Optional.of(new String(text, StandardCharsets.UTF_8));
        } catch (AEADBadTagException forged) {
            return Optional.empty();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java platform has AES-GCM", e);
        }
    }

    private Cipher cipher(int mode, byte[] nonce, String entryKey) throws GeneralSecurityException {
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(mode, sealing, new GCMParameterSpec(TAG_BITS, nonce));
        cipher.updateAAD(entryKey.getBytes(StandardCharsets.UTF_8));
        return cipher;
    }

    /** 32 bytes for {@code purpose}: an HMAC-SHA-256 of it under the secret, so no two purposes share a key. */
    private static byte[] derive(byte[] secret, String purpose) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return mac.doFinal(("sluice " + purpose + " 1").getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java platform has HmacSHA256", e);
        }
    }

    /** Never the secret: whether it was configured. */
    @Override
    public String toString() {
        return configured ? "KeySecret[configured]" : "KeySecret[derived from the map's name]";
    }
}
