package dev.sharding.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded H2 database's pool, on a real H2 file. */
class EmbeddedH2PoolTests {

    @TempDir
    Path folder;

    private EmbeddedH2Pool pool;

    @BeforeEach
    void open() {
        pool = newPool();
    }

    private EmbeddedH2Pool newPool() {
        Path database = folder.resolve("sharding");
        return new EmbeddedH2Pool(
                "jdbc:h2:file:" + database.toAbsolutePath() + JdbcStores.EMBEDDED_H2_OPTIONS,
                JdbcStores.EMBEDDED_H2_CLIENT_OPTIONS,
                new H2FileTakeover(database, TimeUnit.SECONDS.toNanos(15)),
                2,
                1);
    }

    @AfterEach
    void close() {
        pool.close();
    }

    @Test
    void aConnectionGivenBackIsHandedOutAgainWithAutoCommitOn() throws SQLException {
        Connection physical;
        try (Connection c = pool.getConnection()) {
            physical = c.unwrap(Connection.class);
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
                s.execute("INSERT INTO t VALUES (1)");
            }
            // given back in the middle of a transaction: rolled back
        }
        try (Connection c = pool.getConnection()) {
            assertThat(c.unwrap(Connection.class)).isSameAs(physical);
            assertThat(c.getAutoCommit()).isTrue();
            try (Statement s = c.createStatement();
                    var rows = s.executeQuery("SELECT COUNT(*) FROM t")) {
                rows.next();
                assertThat(rows.getInt(1)).isZero();
            }
        }
    }

    @Test
    void aBrokenConnectionTakesTheIdleOnesOpenedBeforeItAlong() throws SQLException {
        Connection broken = pool.getConnection();
        Connection other = pool.getConnection();
        Connection otherPhysical = other.unwrap(Connection.class);
        other.close();
        // as the store discards a connection it found broken: the physical one closed, then given back
        broken.unwrap(Connection.class).close();
        broken.close();

        try (Connection c = pool.getConnection()) {
            assertThat(c.unwrap(Connection.class)).isNotSameAs(otherPhysical);
        }
        assertThat(otherPhysical.isClosed()).isTrue();
    }

    @Test
    void aConnectionGivenBackCannotBeUsedAndIsGivenBackOnce() throws SQLException {
        Connection c = pool.getConnection();
        c.close();
        c.close();
        assertThat(c.isClosed()).isTrue();
        assertThatThrownBy(c::createStatement).isInstanceOf(SQLException.class);
        // two connections still, no more: the second close gave nothing back twice
        try (Connection a = pool.getConnection();
                Connection b = pool.getConnection()) {
            assertThat(a.unwrap(Connection.class)).isNotSameAs(b.unwrap(Connection.class));
            assertThatThrownBy(pool::getConnection).isInstanceOf(SQLTransientConnectionException.class);
        }
    }

    @Test
    void noMoreConnectionsThanTheMaximumAreHandedOut() throws SQLException {
        try (Connection a = pool.getConnection();
                Connection b = pool.getConnection()) {
            assertThatThrownBy(pool::getConnection)
                    .isInstanceOf(SQLTransientConnectionException.class)
                    .hasMessageContaining("within 1 s");
        }
    }

    @Test
    void closingThePoolOfTheProcessThatHasTheFileOpenClosesTheDatabaseForEveryone() throws SQLException {
        try (Connection c = pool.getConnection()) {
            assertThat(c.isValid(1)).isTrue();
        }
        // another session keeps the database open, as the other nodes' connections to its server do
        Connection other = java.sql.DriverManager.getConnection(
                "jdbc:h2:file:" + folder.resolve("sharding").toAbsolutePath() + JdbcStores.EMBEDDED_H2_OPTIONS,
                "sa",
                "");
        assertThat(folder.resolve("sharding.lock.db")).exists();

        pool.close();

        assertThat(folder.resolve("sharding.lock.db")).doesNotExist();
        assertThatThrownBy(() -> other.createStatement().execute("SELECT 1")).isInstanceOf(SQLException.class);
        other.close();
    }

    @Test
    void anotherNodesPoolConnectsToTheServerAndTakesTheFileOverWhenTheServingNodeCloses() throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
            s.execute("INSERT INTO t VALUES (1)");
        }
        // a second node's pool on the same file: H2 shares a file opened in the same JVM, so only the lock file
        // and the server it names tell this pool where to go, as they tell another process
        try (EmbeddedH2Pool other = newPool()) {
            Connection client = other.getConnection();
            assertThat(client.unwrap(Connection.class).getMetaData().getURL()).startsWith("jdbc:h2:tcp://");
            assertThat(count(client)).isEqualTo(1);
            client.close();

            pool.close();

            Connection broken = other.getConnection();
            assertThatThrownBy(() -> count(broken)).isInstanceOf(SQLException.class);
            // as the store discards a connection it found broken
            broken.unwrap(Connection.class).close();
            broken.close();
            try (Connection c = other.getConnection()) {
                assertThat(c.unwrap(Connection.class).getMetaData().getURL()).startsWith("jdbc:h2:file:");
                assertThat(count(c)).isEqualTo(1);
            }
        }
    }

    private static int count(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                var rows = s.executeQuery("SELECT COUNT(*) FROM t")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    @Test
    void aClosedPoolHandsOutNothing() {
        pool.close();
        assertThatThrownBy(pool::getConnection).isInstanceOf(SQLException.class).hasMessageContaining("closed");
    }
}
