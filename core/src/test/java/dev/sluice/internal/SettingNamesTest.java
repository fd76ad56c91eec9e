package dev.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Setting names nobody takes stop the start, naming the nearest known name and every known one. */
class SettingNamesTest {

    private static final List<String> KNOWN = List.of("rules", "rules-reload-interval", "store", "failure-policy",
            "store-timeout", "header-style");

    @Test
    void requireKnown_misspeltName_namesItTheNearestKnownOneAndEveryKnownName() {
        assertThatThrownBy(() -> SettingNames.requireKnown(List.of("store", "rules-file"), "a Sluice filter init-param",
                KNOWN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("init-param 'rules-file' is not a Sluice filter init-param; did you mean 'rules'? Known:"
                        + " rules, rules-reload-interval, store, failure-policy, store-timeout, header-style");
    }

    @Test
    void requireKnown_nameInAnotherCase_isUnknownAndNearestToItsKnownSpelling() {
        assertThatThrownBy(() -> SettingNames.requireKnown(List.of("Store-Timeout"), "known", KNOWN))
                .hasMessageStartingWith("init-param 'Store-Timeout' is not known; did you mean 'store-timeout'? ");
    }

    @Test
    void requireKnown_nothingKnown_namesNoNearest() {
        assertThatThrownBy(() -> SettingNames.requireKnown(List.of("size"), "a setting", List.of()))
                .hasMessage("init-param 'size' is not a setting. Known: ");
    }

    @Test
    void requireKnown_nameNearNoKnownOne_namesNoNearest() {
        assertThatThrownBy(() -> SettingNames.requireKnown(List.of("burst"), "known", KNOWN))
                .hasMessageStartingWith("init-param 'burst' is not known. Known: rules, ");
    }

    @Test
    void requireKnown_onlyKnownNames_passes() {
        assertThatCode(() -> SettingNames.requireKnown(KNOWN, "known", KNOWN)).doesNotThrowAnyException();
        assertThatCode(() -> SettingNames.requireKnown(List.of(), "known", List.of())).doesNotThrowAnyException();
    }

    @Test
    void distance_editsBetweenNames_countsInsertionsDeletionsAndSubstitutions() {
        assertThat(SettingNames.distance("rules", "rules")).isZero();
        assertThat(SettingNames.distance("rules-file", "rules")).isEqualTo(5);
        assertThat(SettingNames.distance("hazelcast-member", "hazelcast-members")).isEqualTo(1);
        assertThat(SettingNames.distance("stroe", "store")).isEqualTo(2);
        assertThat(SettingNames.distance("", "store")).isEqualTo(5);
        assertThat(SettingNames.distance("STORE", "store")).isZero();
    }
}
