package dev.sluice.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The mask of a key as {@code dev.sluice.engine.KeyMask} gives it, for the packages below the rules (the store's
 * overrides log): an HMAC under a secret drawn when this class loads, so one key has one mask in this JVM and no one
 * outside it can recover the key. Thread-safe.
 */
public final class KeyHash {

    private static final String ALGORITHM = "HmacSHA256";
    private static final SecretKeySpec SECRET = newSecret();
    /** A Mac is not thread-safe and costs a provider lookup to make: one per thread, made once. */
    private static final ThreadLocal<Mac> MAC = ThreadLocal.withInitial(KeyHash::newMac);

    private KeyHash() {
    }

    private static SecretKeySpec newSecret() {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        return new SecretKeySpec(secret, ALGORITHM);
    }

    private static Mac newMac() {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(SECRET);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java platform has " + ALGORITHM, e);
        }
    }

    /** The mask of {@code key}: {@code #} and 8 hex digits of its keyed hash. */
    public static String mask(String key) {
        return "#" + HexFormat.of().formatHex(MAC.get().doFinal(key.getBytes(StandardCharsets.UTF_8)), 0, 4);
    }
}
