package dev.sharding.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** Connection pools of the store's tests, as an application configures one: Hikari's defaults. */
final class TestPools {

    private TestPools() {}

    /**
     * A pool on a database, with an empty password.
     *
     * @param url its JDBC URL
     * @param user its user
     * @return the pool; the caller closes it
     */
    static HikariDataSource of(String url, String user) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword("");
        return new HikariDataSource(config);
    }
}
