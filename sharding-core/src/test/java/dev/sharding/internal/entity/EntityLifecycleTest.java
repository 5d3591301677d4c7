package dev.sharding.internal.entity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The legal moves of an entity's life, and that an illegal one throws in tests (assertions on). */
class EntityLifecycleTest {

    @Test
    void aLifeFromFirstMessageToRetirement() {
        EntityLifecycle s = EntityLifecycle.NEW;
        s = s.moveTo(EntityLifecycle.LOADING, "e");
        s = s.moveTo(EntityLifecycle.ACTIVE, "e");
        s = s.moveTo(EntityLifecycle.PASSIVATED, "e");
        s = s.moveTo(EntityLifecycle.RETIRED, "e");
        s = s.moveTo(EntityLifecycle.PASSIVATED, "e"); // a message raced in
        s = s.moveTo(EntityLifecycle.ACTIVE, "e");
        s = s.moveTo(EntityLifecycle.STOPPED, "e");

        assertThat(s).isEqualTo(EntityLifecycle.STOPPED);
    }

    @Test
    void stoppedIsFinal() {
        assertThat(EntityLifecycle.STOPPED.next()).containsExactly(EntityLifecycle.STOPPED);
        for (EntityLifecycle to : EnumSet.complementOf(EnumSet.of(EntityLifecycle.STOPPED))) {
            assertThatThrownBy(() -> EntityLifecycle.STOPPED.moveTo(to, "Entity[counter/7]"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Entity[counter/7] cannot move from STOPPED to " + to);
        }
    }

    @Test
    void aRetiredCellOnlyComesBackAsPassivated() {
        assertThat(EntityLifecycle.RETIRED.next()).containsExactly(EntityLifecycle.PASSIVATED);
        assertThatThrownBy(() -> EntityLifecycle.RETIRED.moveTo(EntityLifecycle.ACTIVE, "e"))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anActiveEntityNeitherLoadsNorRetiresWithoutPassivatingFirst() {
        assertThatThrownBy(() -> EntityLifecycle.ACTIVE.moveTo(EntityLifecycle.LOADING, "e"))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> EntityLifecycle.ACTIVE.moveTo(EntityLifecycle.RETIRED, "e"))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> EntityLifecycle.NEW.moveTo(EntityLifecycle.RETIRED, "e"))
                .isInstanceOf(IllegalStateException.class);
    }
}
