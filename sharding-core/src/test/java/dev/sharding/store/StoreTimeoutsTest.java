package dev.sharding.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class StoreTimeoutsTest {

    private static final Duration TEN_SECONDS = Duration.ofSeconds(10);

    @Test
    void failuresFromATimeLimitAreNamedWithTheSetting() {
        assertThat(StoreTimeouts.reason(new SQLException("lock timeout", "55P03"), TEN_SECONDS, TEN_SECONDS))
                .startsWith("a row lock was held by another transaction for longer than allowed")
                .contains("(sharding.store.query-timeout allows 10s): java.sql.SQLException: lock timeout");
        assertThat(StoreTimeouts.kind(new SQLException("canceling statement", "57014")))
                .isEqualTo("a statement ran, or waited for a row lock, for longer than allowed");
        assertThat(StoreTimeouts.kind(new SQLException("terminating connection", "25P03")))
                .startsWith("this node paused within a transaction");
        assertThat(StoreTimeouts.kind(new SQLTimeoutException("Timeout trying to lock table", "HYT00", 50200)))
                .startsWith("a row lock was held");
        assertThat(StoreTimeouts.kind(new SQLException("I/O error", "08006", new SocketTimeoutException("Read"))))
                .startsWith("the database did not answer");
        assertThat(StoreTimeouts.kind(new ConnectionSource.NoConnectionException("No connection within 4s")))
                .startsWith("no connection came from the pool in time");
        SQLException batch = new SQLException("batch failed", "42000");
        batch.setNextException(new SQLException("lock timeout", "55P03"));
        assertThat(StoreTimeouts.kind(batch))
                .as("found in the chain of a batch failure")
                .startsWith("a row lock");
    }

    @Test
    void otherFailuresAreLeftAsTheyAre() {
        SQLException other = new SQLException("duplicate key", "23505");
        assertThat(StoreTimeouts.kind(other)).isNull();
        assertThat(StoreTimeouts.reason(other, TEN_SECONDS, TEN_SECONDS)).isEqualTo(other.toString());
        assertThat(StoreTimeouts.kind(new IllegalStateException("no"))).isNull();
        assertThat(StoreTimeouts.kind(null)).isNull();
    }

    @Test
    void aShorterLimitSaysWhereItComesFrom() {
        assertThat(StoreTimeouts.limit(Duration.ofMillis(1500), TEN_SECONDS))
                .isEqualTo("the limit is 1500ms, half the lease, at most sharding.store.query-timeout=10s");
        assertThat(StoreTimeouts.seconds(Duration.ofMillis(1500)))
                .as("JDBC's whole seconds, rounded up")
                .isEqualTo(2);
        assertThat(StoreTimeouts.seconds(Duration.ofMillis(1))).isEqualTo(1);
        assertThat(StoreTimeouts.millis(Duration.ofNanos(1))).isEqualTo(1);
    }
}
