package dev.sharding.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session that sits in a transaction holding a shard's epoch row (a client that lost its connection where an H2
 * server could not hear it) blocks every new epoch of that shard until the server aborts it: the store ends such a
 * session once it has been idle longer than any store transaction may take, and the shard takes a new epoch again.
 */
class AbandonedTransactionTest {

    @TempDir
    Path folder;

    @Test
    void aTransactionAbandonedOnAShardsEpochRowIsAbortedAndTheShardTakesANewEpoch() throws Exception {
        String url = "jdbc:h2:file:" + folder.resolve("db") + ";AUTO_SERVER=TRUE";
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername("sa");
        config.setPassword("");
        try (HikariDataSource pool = new HikariDataSource(config)) {
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
                assertThatThrownBy(() -> store.nextEpoch("account", 3).get(10, TimeUnit.SECONDS))
                        .as("the row is held")
                        .hasMessageContaining("held by another transaction");

                long[] next = {0};
                Awaitility.await("a new epoch once the abandoned transaction is aborted")
                        .atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(200))
                        .ignoreExceptions()
                        .until(() -> {
                            next[0] = store.nextEpoch("account", 3).get(10, TimeUnit.SECONDS);
                            return true;
                        });
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
}
