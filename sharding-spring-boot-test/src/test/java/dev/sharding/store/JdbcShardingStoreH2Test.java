package dev.sharding.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sharding.ShardingException;
import dev.sharding.boot.test.store.FaultyDataSource;
import dev.sharding.boot.test.store.StoreFault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JDBC store on an H2 file database in a temporary folder, opened the way the product opens it (commits written
 * before they are acknowledged); plus what only H2 needs: a watchdog for connections whose driver cannot time out.
 */
class JdbcShardingStoreH2Test extends JdbcStoreLimitsContract {

    @TempDir
    static Path folder;

    private static HikariDataSource pool;

    private static FaultyDataSource dataSource;

    @BeforeAll
    static void openDatabase() {
        HikariConfig config = new HikariConfig();
        config.setPoolName("h2-store-test");
        config.setJdbcUrl("jdbc:h2:file:" + folder.resolve("store") + ";WRITE_DELAY=0");
        config.setUsername("sa");
        config.setPassword("");
        config.setMaximumPoolSize(16);
        config.setConnectionTimeout(10_000);
        pool = new HikariDataSource(config);
        dataSource = new FaultyDataSource(pool);
    }

    @AfterAll
    static void closeDatabase() {
        pool.close();
    }

    @Override
    protected FaultyDataSource dataSource() {
        return dataSource;
    }

    @Override
    protected DataSource anotherDatabase() {
        JdbcDataSource other = new JdbcDataSource();
        other.setURL("jdbc:h2:file:" + folder.resolve("other-" + System.nanoTime()));
        other.setUser("sa");
        return other;
    }

    /**
     * H2's client has no network timeout: a server that stops answering (its process stopped) holds every call on
     * it. The watchdog aborts the connection of a call that has used it for twice the query timeout, and the writer
     * fails the writes queued behind a batch it cannot begin: every operation fails within about twice the query
     * timeout, no thread stays blocked, and the store works as soon as the database answers again.
     */
    @Test
    void connectionsThatHangAreAbortedAtTheirDeadlineAndTheStoreWorksAgainAfterwards() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withQueryTimeout(Duration.ofMillis(300)));
        await(s.write(type, "a", SHARD, 1, bytes("before")));
        List<CompletableFuture<?>> asked = new ArrayList<>();
        long start = System.nanoTime();
        try {
            dataSource.inject(StoreFault.HANGS);
            asked.add(s.write(type, "a", SHARD, 1, bytes("during")));
            asked.add(s.nextEpoch(type, 1));
            asked.add(s.read(type, "a"));
            org.awaitility.Awaitility.await("the writer and a reader waiting for the database")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> dataSource.hanging() >= 2);
            for (int i = 0; i < 5; i++) {
                asked.add(s.write(type, "queued-" + i, SHARD, 1, bytes("queued")));
            }
            for (CompletableFuture<?> f : asked) {
                assertThat(failureOf(f))
                        .isInstanceOf(ShardingException.class)
                        .hasMessageContaining("sharding.store.query-timeout");
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("time until every operation failed")
                    .isLessThan(Duration.ofSeconds(5));
            org.awaitility.Awaitility.await("the watchdog aborting the writer's and the reader's connections")
                    .atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> {
                        assertThat(s.abortedConnections()).isGreaterThanOrEqualTo(2);
                        assertThat(dataSource.aborted()).isGreaterThanOrEqualTo(2);
                        assertThat(dataSource.hanging())
                                .as("calls still waiting")
                                .isZero();
                    });
        } finally {
            dataSource.inject(null);
        }
        // writes fail, unapplied, until the writer's next check of the database passes: a few hundred ms at most
        org.awaitility.Awaitility.await("a write acknowledged once the database answers again")
                .atMost(Duration.ofSeconds(5))
                .ignoreExceptions()
                .until(() -> await(s.write(type, "a", SHARD, 1, bytes("after"))).version() == 2);
        assertThat(text(await(s.read(type, "a")).orElseThrow())).isEqualTo("after");
        assertThat(await(s.read(type, "queued-0"))).as("a write that failed").isEmpty();
    }
}
