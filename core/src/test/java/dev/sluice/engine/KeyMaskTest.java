package dev.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * Masks keep keys out of what leaves the process: a mask is stable and does not show the key, a store's exception
 * that names the key is copied with the key masked throughout its chain (and still reads as the original).
 */
class KeyMaskTest {

    private static final String KEY = "canary-apikey-7f3a";

    @Test
    void of_sameKey_sameShortMaskWithoutTheKey() {
        assertThat(KeyMask.of(KEY)).matches("#[0-9a-f]{8}").isEqualTo(KeyMask.of(KEY))
                .isNotEqualTo(KeyMask.of(KEY + "x"));
    }

    @Test
    void redacted_keyInMessagesOfTheChain_maskedKeepingClassesAndStackTraces() {
        IllegalStateException cause = new IllegalStateException("no owner for " + KEY);
        RuntimeException error = new RuntimeException("apply failed on login@0123456789ab|" + KEY, cause);
        error.addSuppressed(new IllegalArgumentException("retry of " + KEY));

        RuntimeException redacted = KeyMask.redacted(error, KEY);

        StringWriter printed = new StringWriter();
        redacted.printStackTrace(new PrintWriter(printed));
        assertThat(printed.toString()).doesNotContain(KEY)
                .contains("java.lang.RuntimeException: apply failed on login@0123456789ab|" + KeyMask.of(KEY),
                        "Caused by: java.lang.IllegalStateException: no owner for " + KeyMask.of(KEY),
                        "Suppressed: java.lang.IllegalArgumentException: retry of " + KeyMask.of(KEY));
        assertThat(redacted.getStackTrace()).isEqualTo(error.getStackTrace());
    }

    @Test
    void redacted_keyNotMentionedOrTooShort_returnsTheErrorItself() {
        RuntimeException error = new RuntimeException("timed out after 100 ms on *");
        assertThat(KeyMask.redacted(error, KEY)).isSameAs(error);
        assertThat(KeyMask.redacted(error, "*")).isSameAs(error);
    }
}
