package dev.sharding.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class JdbcStoreSettingsTest {

    @Test
    void defaultsAreValid() {
        JdbcStoreSettings defaults = JdbcStoreSettings.defaults().validate();
        assertThat(defaults.tablePrefix()).isEqualTo("sharding_");
        assertThat(defaults.maxBatchSize()).isEqualTo(1000);
        assertThat(defaults.queryTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(defaults.queryTimeout().multipliedBy(2))
                .as("the deadline of a store call on a database that does not answer, within the ask timeout")
                .isLessThan(dev.sharding.ShardingSettings.DEFAULT_ASK_TIMEOUT);
        assertThat(defaults.batchLinger()).isEqualTo(Duration.ofMillis(1));
        assertThat(new JdbcStoreSettings("p_", 10, 1, Duration.ZERO, Duration.ofSeconds(1)).batchLinger())
                .isEqualTo(JdbcStoreSettings.DEFAULT_BATCH_LINGER);
        assertThat(defaults.withBatchLinger(Duration.ZERO).validate().batchLinger())
                .isZero();
    }

    @Test
    void rejectsANegativeOrLongBatchLinger() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> JdbcStoreSettings.defaults()
                        .withBatchLinger(Duration.ofMillis(-1))
                        .validate())
                .withMessage("Invalid setting sharding.store.batch-linger=PT-0.001S: must not be negative");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> JdbcStoreSettings.defaults()
                        .withBatchLinger(Duration.ofMillis(1001))
                        .validate())
                .withMessage("Invalid setting sharding.store.batch-linger=PT1.001S: must be at most PT1S");
    }

    @Test
    void rejectsPrefixesThatAreNotPlainIdentifiers() {
        for (String prefix : new String[] {"", "1x_", "x-y_", "x y", "x;DROP TABLE y;", "\"quoted\""}) {
            assertThatIllegalArgumentException()
                    .isThrownBy(() ->
                            JdbcStoreSettings.defaults().withTablePrefix(prefix).validate())
                    .withMessageStartingWith("Invalid setting sharding.store.table-prefix=" + prefix + ":");
        }
        assertThatIllegalArgumentException()
                .isThrownBy(() -> JdbcStoreSettings.defaults()
                        .withTablePrefix("p".repeat(41))
                        .validate())
                .withMessageEndingWith("must be at most 40 characters");
        assertThat(JdbcStoreSettings.defaults()
                        .withTablePrefix("Cluster_2_")
                        .validate()
                        .tablePrefix())
                .isEqualTo("Cluster_2_");
    }

    @Test
    void rejectsOutOfRangeNumbers() {
        assertThatIllegalArgumentException()
                .isThrownBy(
                        () -> JdbcStoreSettings.defaults().withMaxBatchSize(0).validate())
                .withMessage("Invalid setting sharding.store.max-batch-size=0: must be positive");
        assertThatIllegalArgumentException()
                .isThrownBy(
                        () -> JdbcStoreSettings.defaults().withReadThreads(0).validate())
                .withMessage("Invalid setting sharding.store.read-threads=0: must be positive");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> JdbcStoreSettings.defaults()
                        .withCloseTimeout(Duration.ofSeconds(-1))
                        .validate())
                .withMessage("Invalid setting sharding.store.close-timeout=PT-1S: must not be negative");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> JdbcStoreSettings.defaults()
                        .withQueryTimeout(Duration.ZERO)
                        .validate())
                .withMessage("Invalid setting sharding.store.query-timeout=PT0S: must be at least 1ms");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> JdbcStoreSettings.defaults()
                        .withQueryTimeout(Duration.ofDays(2))
                        .validate())
                .withMessage("Invalid setting sharding.store.query-timeout=PT48H: must be at most PT24H");
    }
}
