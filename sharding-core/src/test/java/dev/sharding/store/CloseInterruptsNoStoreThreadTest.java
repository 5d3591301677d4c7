package dev.sharding.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing the store does not interrupt its threads while they work: a thread interrupted inside an embedded H2
 * database's file I/O closes that database ({@code ClosedByInterruptException}) for every user of it in the JVM, the
 * application's own pool included. Work still running when the close gives up on it ends by its own deadline.
 */
class CloseInterruptsNoStoreThreadTest {

    @TempDir
    Path folder;

    @Test
    void workRunningWhenTheCloseGivesUpIsNotInterruptedAndTheDatabaseStaysOpen() throws Exception {
        try (HikariDataSource pool = TestPools.of("jdbc:h2:file:" + folder.resolve("db"), "sa")) {
            JdbcShardingStore store =
                    new JdbcShardingStore(pool, JdbcStoreSettings.defaults().withCloseTimeout(Duration.ofMillis(100)));
            store.createSchema();
            try (Connection c = pool.getConnection();
                    Statement st = c.createStatement()) {
                st.execute("CREATE TABLE projected (id INT PRIMARY KEY)");
            }
            long offset = store.projectionOffset("p", 0).get(10, TimeUnit.SECONDS);
            CountDownLatch working = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicBoolean interrupted = new AtomicBoolean();
            CompletableFuture<Boolean> handled = store.inProjectionTransaction("p", 0, offset, offset + 1, c -> {
                working.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    interrupted.set(true);
                    Thread.currentThread().interrupt();
                }
                interrupted.compareAndSet(false, Thread.currentThread().isInterrupted());
                try (Statement st = c.createStatement()) {
                    st.execute("INSERT INTO projected VALUES (1)");
                }
            });
            assertThat(working.await(10, TimeUnit.SECONDS)).isTrue();

            store.close(); // gives up on the running work after 100 ms
            release.countDown();
            handled.handle((ok, failure) -> null).get(30, TimeUnit.SECONDS);

            assertThat(interrupted)
                    .as("the store's thread was interrupted in the work")
                    .isFalse();
            try (Connection c = pool.getConnection();
                    Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM projected")) {
                assertThat(rs.next()).as("the database still answers").isTrue();
            }
        }
    }
}
