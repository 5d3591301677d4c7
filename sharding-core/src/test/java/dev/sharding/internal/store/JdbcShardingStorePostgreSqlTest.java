package dev.sharding.internal.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sharding.test.store.FaultyDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The JDBC store on a real PostgreSQL server, started for this class on a free port and stopped after it.
 */
class JdbcShardingStorePostgreSqlTest extends JdbcStoreContract {

    private static EmbeddedPostgres postgres;

    private static HikariDataSource pool;

    private static FaultyDataSource dataSource;

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
}
