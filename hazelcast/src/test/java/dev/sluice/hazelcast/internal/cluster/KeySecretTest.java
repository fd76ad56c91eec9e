package dev.sluice.hazelcast.internal.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What a {@link KeySecret} makes of counter keys and sealed texts, with no cluster. */
class KeySecretTest {

    private static final KeySecret SECRET = KeySecret.configured("sixteen or more characters");
    private static final KeySecret OTHER = KeySecret.configured("another secret, as long");

    @Test
    void mapKey_ruleKey_keepsTheScopeAndHashesTheRest() {
        String mapKey = SECRET.mapKey("login@0123456789ab|alice|198.51.100.7");

        assertThat(mapKey).startsWith("login@0123456789ab|").hasSize("login@0123456789ab|".length() + 22)
                .doesNotContain("alice").doesNotContain("198.51.100.7");
        assertThat(mapKey.substring("login@0123456789ab|".length())).matches("[A-Za-z0-9_-]{22}");
        assertThat(SECRET.mapKey("login@0123456789ab|alice|198.51.100.7")).as("the same on every call")
                .isEqualTo(mapKey);
    }

    @Test
    void mapKey_keyOfAnotherShape_isTheHashAlone() {
        assertThat(SECRET.mapKey("alice")).matches("[A-Za-z0-9_-]{22}");
        assertThat(SECRET.mapKey("sluice-client|github|api.github.com")).as("no rule scope")
                .matches("[A-Za-z0-9_-]{22}");
        assertThat(SECRET.mapKey("a b@0123456789ab|alice")).as("not a rule id").matches("[A-Za-z0-9_-]{22}");
        assertThat(SECRET.mapKey("login@0123456789AB|alice")).as("not a fingerprint").matches("[A-Za-z0-9_-]{22}");
    }

    @Test
    void mapKey_otherSecretOrOtherKey_givesAnotherMapKey() {
        Set<String> mapKeys = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            mapKeys.add(SECRET.mapKey("api@0123456789ab|client-" + i));
        }
        assertThat(mapKeys).as("distinct keys, distinct map keys").hasSize(10_000);
        assertThat(OTHER.mapKey("api@0123456789ab|client-1")).isNotEqualTo(SECRET.mapKey("api@0123456789ab|client-1"));
        assertThat(SECRET.mapKey("other@0123456789ab|client-1").substring(19))
                .as("the same value under another rule").isNotEqualTo(SECRET.mapKey("api@0123456789ab|client-1")
                        .substring(17));
    }

    @Test
    void derived_sameMapName_isTheSameSecretAndNotAConfiguredOne() {
        assertThat(KeySecret.derived("sluice-counters").fingerprint())
                .isEqualTo(KeySecret.derived("sluice-counters").fingerprint())
                .isNotEqualTo(KeySecret.derived("sluice-counters/shop").fingerprint())
                .isNotEqualTo(SECRET.fingerprint());
        assertThat(KeySecret.derived("sluice-counters").configured()).isFalse();
        assertThat(SECRET.configured()).isTrue();
        assertThat(SECRET.fingerprint()).doesNotContain("sixteen").isEqualTo(
                KeySecret.configured("sixteen or more characters").fingerprint());
    }

    @Test
    void configured_shorterThanSixteen_isRefusedWithoutQuotingIt() {
        assertThatThrownBy(() -> KeySecret.configured("fifteen chars!!"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a key secret must have at least 16 characters, got 15");
        assertThat(SECRET.toString()).doesNotContain("sixteen");
    }

    @Test
    void open_whatItSealedForThatEntry_givesTheText() {
        String sealed = SECRET.seal("api|x", "{\"key\":\"alice\"}");

        assertThat(sealed).startsWith("s1.").doesNotContain("alice");
        assertThat(SECRET.open("api|x", sealed)).contains("{\"key\":\"alice\"}");
        assertThat(SECRET.seal("api|x", "{\"key\":\"alice\"}")).as("a fresh nonce each time").isNotEqualTo(sealed);
    }

    @Test
    void open_plainForgedMovedOrOtherSecrets_givesNothing() {
        String sealed = SECRET.seal("api|x", "{\"key\":\"alice\"}");
        int middle = sealed.length() / 2;
        String tampered = sealed.substring(0, middle) + (sealed.charAt(middle) == 'A' ? 'B' : 'A')
                + sealed.substring(middle + 1);

        assertThat(SECRET.open("api|x", "{\"key\":\"alice\"}")).as("plain").isEmpty();
        assertThat(SECRET.open("api|x", tampered)).as("tampered").isEmpty();
        assertThat(SECRET.open("api|y", sealed)).as("moved to another entry").isEmpty();
        assertThat(OTHER.open("api|x", sealed)).as("another secret").isEmpty();
        assertThat(SECRET.open("api|x", "s1.***")).as("not base64").isEmpty();
        assertThat(SECRET.open("api|x", "s1.AAAA")).as("too short").isEmpty();
    }
}
