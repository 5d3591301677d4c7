package dev.sharding.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.sharding.spi.NewEvent;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session that sits in a transaction holding a shard's epoch row (a client that lost its connection where an H2
 * server could not hear it) blocks every new epoch of that shard until the server aborts it: the store ends such a
 * session once it has been idle longer than any store transaction may take, and the shard takes a new epoch again.
 * One that other sessions wait for (a node slow to reach the database, holding the journal's offset counter, which
 * every event append of the cluster takes) is ended sooner: once idle for half the query timeout.
 */
class AbandonedTransactionTest {

    @TempDir
    Path folder;

    @Test
    void aTransactionAbandonedOnAShardsEpochRowIsAbortedAndTheShardTakesANewEpoch() throws Exception {
        String url = "jdbc:h2:file:" + folder.resolve("db") + ";AUTO_SERVER=TRUE";
        try (HikariDataSource pool = TestPools.of(url, "sa")) {
            JdbcShardingStore store =
                    new JdbcShardingStore(pool, JdbcStoreSettings.defaults().withQueryTimeout(Duration.ofMillis(250)));
            try {
                store.createSchema();
                long first = store.nextEpoch("account", 3).get(10, TimeUnit.SECONDS);

                // another client locks the shard's epoch row and then goes silent, its transaction open
                Connection abandoned = DriverManager.getConnection(url, "sa", "");
                abandoned.setAutoCommit(false);
                try (PreparedStatement ps = abandoned.prepareStatement(
                        "UPDATE sharding_shard_epoch SET epoch = epoch WHERE type_name = ? AND shard_id = ?")) {
                    ps.setString(1, "account");
                    ps.setInt(2, 3);
                    assertThat(ps.executeUpdate()).isEqualTo(1);
                }
                long abandonedId = sessionId(abandoned);

                // nobody waits for it: the store ends it once it has been idle for longer than the idle limit
                try (Connection look = DriverManager.getConnection(url, "sa", "")) {
                    Awaitility.await("the abandoned session aborted")
                            .atMost(Duration.ofSeconds(30))
                            .pollInterval(Duration.ofMillis(100))
                            .until(() -> !sessionExists(look, abandonedId));
                }
                long[] next = {store.nextEpoch("account", 3).get(10, TimeUnit.SECONDS)};
                assertThat(next[0]).isGreaterThan(first);
                assertThatThrownBy(abandoned::commit)
                        .as("the abandoned session was aborted, its transaction rolled back")
                        .isInstanceOf(SQLException.class);
                abandoned.close();
            } finally {
                store.close();
            }
        }
    }

    @Test
    void anIdleTransactionIsAbortedAtTheBlockingLimitOnlyWhileAnotherSessionWaitsForIt() throws Exception {
        String url = "jdbc:h2:file:" + folder.resolve("db") + ";AUTO_SERVER=TRUE";
        try (Connection sweeper = DriverManager.getConnection(url, "sa", "");
                Connection holder = DriverManager.getConnection(url, "sa", "");
                Connection waiter = DriverManager.getConnection(url, "sa", "")) {
            try (var st = sweeper.createStatement()) {
                st.execute("CREATE TABLE sharding_event_offset (id INT PRIMARY KEY, last_offset BIGINT NOT NULL)");
                st.execute("INSERT INTO sharding_event_offset VALUES (1, 0)");
            }
            Duration idleLimit = Duration.ofHours(1);
            Duration blockingLimit = Duration.ZERO;
            holder.setAutoCommit(false);
            takeOffset(holder);
            long holderId = sessionId(holder);

            assertThat(H2IdleSessions.abortIdle(sweeper, "sharding_", idleLimit, blockingLimit))
                    .as("idle in its transaction, but nobody waits for it")
                    .isZero();

            waiter.setAutoCommit(false);
            try (var st = waiter.createStatement()) {
                st.execute("SET LOCK_TIMEOUT 60000");
            }
            CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
                try {
                    takeOffset(waiter);
                    waiter.commit();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            Awaitility.await("the waiter waits for the holder's lock")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> blockerCount(sweeper, holderId) > 0);
            assertThat(H2IdleSessions.abortIdle(sweeper, "sharding_", idleLimit, blockingLimit))
                    .as("another session waits for it")
                    .isEqualTo(1);
            waiting.get(30, TimeUnit.SECONDS);
            assertThatThrownBy(holder::commit)
                    .as("the holder's transaction was rolled back")
                    .isInstanceOf(SQLException.class);
            try (var st = sweeper.createStatement();
                    ResultSet rs = st.executeQuery("SELECT last_offset FROM sharding_event_offset WHERE id = 1")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).as("only the waiter's increment").isEqualTo(1);
            }
        }
    }

    @Test
    void anAppendWaitingForTheOffsetCounterGetsItOnceTheIdleHolderIsAbortedBeforeTheIdleLimit() throws Exception {
        String url = "jdbc:h2:file:" + folder.resolve("db") + ";AUTO_SERVER=TRUE";
        Duration queryTimeout = Duration.ofSeconds(1);
        try (HikariDataSource pool = TestPools.of(url, "sa")) {
            JdbcShardingStore store =
                    new JdbcShardingStore(pool, JdbcStoreSettings.defaults().withQueryTimeout(queryTimeout));
            try {
                store.createSchema();
                long epoch = store.nextEpoch("account", 0).get(10, TimeUnit.SECONDS);
                List<NewEvent> event = List.of(new NewEvent("deposit", 1, new byte[] {1}, Set.of("account")));
                assertThat(store.appendEvents("account", "a-1", 0, epoch, 0, event, null, null)
                                .get(10, TimeUnit.SECONDS))
                        .isEqualTo(1);

                // several times, with a lock timeout shorter than the periodic look (every 2 s), which may come in
                // time for one by chance: what must free each one in time is the look of the call that waits
                for (int round = 2; round <= 5; round++) {
                    // a node slow to reach the database took the counter and has not sent its next statement
                    Connection slow = DriverManager.getConnection(url, "sa", "");
                    slow.setAutoCommit(false);
                    takeOffset(slow);

                    CompletableFuture<Long> append =
                            store.appendEvents("account", "a-" + round, 0, epoch, 0, event, null, null);
                    // the store's lock timeout is the query timeout: the holder must be gone before it
                    assertThat(append.get(30, TimeUnit.SECONDS))
                            .as(
                                    "round %d appended within the lock timeout, %s, the holder aborted once idle for %s"
                                            + " while waited for",
                                    round, queryTimeout, IdleTransactionSweep.blockingLimit(queryTimeout))
                            .isEqualTo(1);
                    assertThatThrownBy(slow::commit)
                            .as("the slow session was aborted, its transaction rolled back")
                            .isInstanceOf(SQLException.class);
                    slow.close();
                }
            } finally {
                store.close();
            }
        }
    }

    private static void takeOffset(Connection connection) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "UPDATE sharding_event_offset SET last_offset = last_offset + 1 WHERE id = 1")) {
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }

    private static long sessionId(Connection connection) throws SQLException {
        try (var st = connection.createStatement();
                ResultSet rs = st.executeQuery("SELECT SESSION_ID()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static boolean sessionExists(Connection connection, long id) throws SQLException {
        try (PreparedStatement ps =
                connection.prepareStatement("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1) > 0;
            }
        }
    }

    private static int blockerCount(Connection connection, long blocker) throws SQLException {
        try (PreparedStatement ps =
                connection.prepareStatement("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID = ?")) {
            ps.setLong(1, blocker);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
