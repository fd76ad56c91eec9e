package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;

class BootVersionTest {

    @Test
    void require4_boot3_refusedSayingWhatToDo() {
        assertThatThrownBy(() -> BootVersion.require4("3.5.7")).isInstanceOf(SluiceConfigurationException.class)
                .hasMessage("Sluice's Spring Boot starter needs Spring Boot 4.0 or later; this application runs"
                        + " Spring Boot 3.5.7.");
    }

    @Test
    void require4_boot4OrUnknown_accepted() {
        assertThatNoException().isThrownBy(() -> BootVersion.require4("4.0.7"));
        assertThatNoException().isThrownBy(() -> BootVersion.require4("4.1.0-SNAPSHOT"));
        assertThatNoException().isThrownBy(() -> BootVersion.require4(null));
    }

    @Test
    void require4_theBootOfTheseTests_isWhatTheModuleIsBuiltFor() {
        assertThat(SpringBootVersion.getVersion()).isEqualTo("4.0.7");
    }
}
