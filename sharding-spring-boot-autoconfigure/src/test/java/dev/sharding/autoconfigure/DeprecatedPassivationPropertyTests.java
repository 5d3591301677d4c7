package dev.sharding.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.PassivationSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * {@code sharding.passivation.max-active-entities} is deprecated in favour of a type's own
 * {@code sharding.entities.<type>.passivation.active-entity-limit}: it still works, and says so once when set.
 */
@ExtendWith(OutputCaptureExtension.class)
class DeprecatedPassivationPropertyTests {

    @Test
    @SuppressWarnings("deprecation")
    void theDeprecatedLimitStillAppliesAndNamesItsReplacement(CapturedOutput output) {
        PassivationProperties properties = new PassivationProperties();
        properties.setMaxActiveEntities(50);

        PassivationSettings settings = properties.toSettings();

        assertThat(settings.maxActiveEntities()).isEqualTo(50);
        assertThat(output)
                .contains("sharding.passivation.max-active-entities=50 is deprecated")
                .contains("sharding.entities.<type>.passivation.active-entity-limit");
    }

    @Test
    void nothingIsSaidWhenItIsNotSet(CapturedOutput output) {
        new PassivationProperties().toSettings();

        assertThat(output).doesNotContain("max-active-entities");
    }
}
