package dev.sharding.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sharding.boot.test.store.FaultyDataSource;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JDBC store on an H2 file database in a temporary folder, opened the way the product opens it (commits written
 * before they are acknowledged).
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
}
