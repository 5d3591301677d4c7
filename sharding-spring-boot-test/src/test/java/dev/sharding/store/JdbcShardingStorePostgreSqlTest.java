package dev.sharding.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sharding.boot.test.store.FaultyDataSource;
import dev.sharding.spi.ShardingStore.StoredState;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The JDBC store on a real PostgreSQL server, started for this class on a free port and stopped after it; plus what
 * only PostgreSQL does: ending the session of a node frozen in a transaction, so that its row locks go.
 */
class JdbcShardingStorePostgreSqlTest extends JdbcStoreLimitsContract {

    private static EmbeddedPostgres postgres;

    private static HikariDataSource pool;

    private static FaultyDataSource dataSource;

    private static final AtomicInteger OTHER_DATABASES = new AtomicInteger();

    @BeforeAll
    static void startDatabase() throws IOException {
        postgres = EmbeddedPostgres.builder().start();
        HikariConfig config = new HikariConfig();
        config.setPoolName("postgresql-store-test");
        config.setJdbcUrl(postgres.getJdbcUrl("postgres", "postgres"));
        config.setMaximumPoolSize(16);
        config.setConnectionTimeout(10_000);
        pool = new HikariDataSource(config);
        dataSource = new FaultyDataSource(pool);
    }

    @AfterAll
    static void stopDatabase() throws IOException {
        if (pool != null) {
            pool.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Override
    protected FaultyDataSource dataSource() {
        return dataSource;
    }

    @Override
    protected DataSource anotherDatabase() {
        String name = "other_" + OTHER_DATABASES.incrementAndGet();
        try (Connection c = postgres.getPostgresDatabase().getConnection();
                Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create database " + name, e);
        }
        return postgres.getDatabase("postgres", name);
    }

    @Test
    void aNodeFrozenInATransactionLosesItsSessionAndItsLocksAfterTheLimit() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withQueryTimeout(Duration.ofSeconds(8)));
        await(s.write(type, "locked", SHARD, 1, bytes("before")));
        try (Connection frozen = dataSource().getConnection()) {
            frozen.setAutoCommit(false);
            JdbcDialect dialect = JdbcDialect.detect(frozen, JdbcStoreSettings.defaults());
            dialect.beginTransaction(frozen, Duration.ofMillis(500));
            try (PreparedStatement ps = frozen.prepareStatement(
                    "SELECT * FROM sharding_entity_state" + " WHERE type_name = ? AND entity_id = ? FOR UPDATE")) {
                ps.setString(1, type);
                ps.setString(2, "locked");
                ps.executeQuery().close();
            }
            // the node stops here, in its transaction, holding the row
            long start = System.nanoTime();
            StoredState written = await(s.write(type, "locked", SHARD, 1, bytes("after")));
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            assertThat(written.version()).isEqualTo(2);
            assertThat(waited)
                    .as("the write waited for the server to end the frozen session")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(300))
                    .isLessThan(Duration.ofSeconds(5));
            assertThatThrownBy(frozen::commit)
                    .as("the frozen node's transaction is gone when it resumes")
                    .isInstanceOf(SQLException.class);
        }
        assertThat(text(await(s.read(type, "locked")).orElseThrow())).isEqualTo("after");
    }
}
