package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.ManualTimeSource;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a store provider is given: its settings, read alike by every provider. */
class CounterStoreProviderTest {

    private final CounterStoreProvider.Context context = new CounterStoreProvider.Context(
            Map.of("size", "12", "bad-size", "twelve")::get, "/shop", new ManualTimeSource());

    @Test
    void setting_set_isItsText() {
        assertThat(context.setting("size")).hasValue("12");
        assertThat(context.setting("missing")).isEmpty();
    }

    @Test
    void setting_parsed_isTheParsedValueOrEmpty() {
        assertThat(context.setting("size", Integer::parseInt, "a number")).hasValue(12);
        assertThat(context.setting("missing", Integer::parseInt, "a number")).isEmpty();
    }

    @Test
    void setting_parseFails_namesTheSettingAndTheExpectedForm() {
        assertThatThrownBy(() -> context.setting("bad-size", Integer::parseInt, "a number"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("init-param 'bad-size': expected a number, got 'twelve'")
                .hasCauseInstanceOf(NumberFormatException.class);
    }

    @Test
    void context_nullParts_areRefused() {
        assertThatThrownBy(() -> new CounterStoreProvider.Context(name -> null, null, new ManualTimeSource()))
                .isInstanceOf(NullPointerException.class).hasMessage("namespace");
    }

    @Test
    void settingNames_providerThatSaysNothing_isEmptySoItIsGivenEverySetting() {
        CounterStoreProvider silent = new CounterStoreProvider() {
            @Override
            public String name() {
                return "silent";
            }

            @Override
            public CounterStore open(Context given) {
                return new LocalCounterStore();
            }
        };

        assertThat(silent.settingNames()).isEmpty();
    }
}
