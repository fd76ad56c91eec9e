package dev.sluice.http;

import java.util.Locale;

/** Which rate-limit header fields a response carries. {@code Retry-After} is always sent on a rejection. */
public enum HeaderStyle {
    /** The IETF draft fields and the legacy {@code X-RateLimit-*} ones. */
    BOTH,
    /** Only {@code RateLimit-Policy} and {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers). */
    DRAFT,
    /** Only {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset}. */
    LEGACY,
    /** No rate-limit fields. */
    NONE;

    /** Parses {@code both}, {@code draft}, {@code legacy} or {@code none}, in any case. */
    public static HeaderStyle parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "expected one of both, draft, legacy, none; got '" + text + "'", e);
        }
    }

    boolean draft() {
        return this == BOTH || this == DRAFT;
    }

    boolean legacy() {
        return this == BOTH || this == LEGACY;
    }
}
