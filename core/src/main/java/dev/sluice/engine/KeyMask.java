package dev.sluice.engine;

import dev.sluice.internal.KeyHash;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/*
 * Keys are client data (addresses, API keys, user names, header values), so none may leave in clear through a log,
 * an exception message or a page. A plain hash would not do: the space of IPv4 addresses, or of a site's user names,
 * is small enough to hash in full and look the hash up. The mask is therefore an HMAC under a secret drawn when this
 * class loads and never kept anywhere else: within one JVM a key always has the same mask, so log lines and page rows
 * about one client can be told apart and correlated, and no one outside the JVM can recover the key from it.
 */

/**
 * Masks counter keys for anything that leaves the process: {@link #of} gives a short keyed hash such as
 * {@code #62baf845}, the same for one key throughout this JVM's life, which cannot be turned back into the key.
 * Stateless apart from the secret; thread-safe.
 */
public final class KeyMask {

    /*
     * Shorter key values are not masked in exception messages: the constant key "*" or a one-letter header value
     * would turn every occurrence of that letter in the message into a mask, and so short a value keeps no secret.
     */
    private static final int MIN_REDACTED_LENGTH = 4;

    private KeyMask() {
    }

    /** The mask of {@code key}: {@code #} and 8 hex digits of its keyed hash. */
    public static String of(String key) {
        return KeyHash.mask(key);
    }

    /**
     * {@code error} as it may be logged: itself when no message of it, its causes or suppressed exceptions contains
     * {@code key}; otherwise a copy of the chain whose messages have the key replaced by its {@linkplain #of mask},
     * with the same stack traces, each printed by {@code toString} and {@code printStackTrace} under its original class
     * name (a logger that prints {@code getClass()} shows the copy's class). Values shorter than 4 characters are left
     * as they are.
     */
    static RuntimeException redacted(RuntimeException error, String key) {
        if (key.length() < MIN_REDACTED_LENGTH || !mentions(error, key, identitySet())) {
            return error;
        }
        return copy(error, key, of(key), identitySet());
    }

    private static Set<Throwable> identitySet() {
        return Collections.newSetFromMap(new IdentityHashMap<>());
    }

    private static boolean mentions(@Nullable Throwable error, String key, Set<Throwable> seen) {
        if (error == null || !seen.add(error)) {
            return false;
        }
        if (String.valueOf(error.getMessage()).contains(key) || mentions(error.getCause(), key, seen)) {
            return true;
        }
        for (Throwable suppressed : error.getSuppressed()) {
            if (mentions(suppressed, key, seen)) {
                return true;
            }
        }
        return false;
    }

    private static Redacted copy(Throwable error, String key, String mask, Set<Throwable> seen) {
        seen.add(error);
        Throwable cause = error.getCause();
        Redacted copy = new Redacted(error.getClass().getName(),
                error.getMessage() == null ? null : error.getMessage().replace(key, mask),
                cause == null || seen.contains(cause) ? null : copy(cause, key, mask, seen));
        copy.setStackTrace(error.getStackTrace());
        for (Throwable suppressed : error.getSuppressed()) {
            if (!seen.contains(suppressed)) {
                copy.addSuppressed(copy(suppressed, key, mask, seen));
            }
        }
        return copy;
    }

    /** An exception with a key masked out of its message, shown as the exception it copies. */
    private static final class Redacted extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final String originalClass;

        Redacted(String originalClass, @Nullable String message, @Nullable Throwable cause) {
            super(message, cause);
            this.originalClass = originalClass;
        }

        @Override
        public String toString() {
            return getMessage() == null ? originalClass : originalClass + ": " + getMessage();
        }
    }
}
