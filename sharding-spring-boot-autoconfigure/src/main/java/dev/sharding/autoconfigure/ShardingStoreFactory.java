package dev.sharding.autoconfigure;

import dev.sharding.internal.store.InMemoryShardingStore;
import dev.sharding.internal.store.JdbcShardingStore;
import dev.sharding.internal.store.JdbcStoreSettings;
import dev.sharding.spi.ShardingStore;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.ClassUtils;

/**
 * Makes the store the properties ask for: in memory, or JDBC over the application's {@link DataSource}, or over an
 * embedded H2 file database when the application has none.
 */
final class ShardingStoreFactory {

    /**
     * Settings of the embedded H2 database. AUTO_SERVER lets several nodes started from one folder share the file
     * (the first serves it to the others, who reconnect to whoever serves it next if it dies); WRITE_DELAY=0 makes
     * a commit reach the file before it returns, so a kill -9 of the serving process loses no acknowledged write.
     */
    static final String EMBEDDED_H2_OPTIONS = ";AUTO_SERVER=TRUE;AUTO_RECONNECT=TRUE;WRITE_DELAY=0";

    private static final Logger log = LoggerFactory.getLogger(ShardingStoreFactory.class);

    private ShardingStoreFactory() {
    }

    static ShardingStore create(StoreProperties properties, @Nullable DataSource applicationDataSource) {
        if (properties.getType() == StoreProperties.StoreType.MEMORY) {
            return new InMemoryShardingStore();
        }
        DataSource dataSource = applicationDataSource;
        AutoCloseable owned = null;
        if (dataSource == null) {
            if (!ClassUtils.isPresent("org.h2.jdbcx.JdbcConnectionPool", ShardingStoreFactory.class.getClassLoader())) {
                throw new IllegalStateException("sharding.store.type=jdbc needs a DataSource bean or the H2 driver"
                        + " (com.h2database:h2) for its embedded database; or set sharding.store.type=memory");
            }
            String url = "jdbc:h2:file:" + properties.getEmbeddedPath().toAbsolutePath() + EMBEDDED_H2_OPTIONS;
            org.h2.jdbcx.JdbcConnectionPool pool = org.h2.jdbcx.JdbcConnectionPool.create(url, "sa", "");
            pool.setMaxConnections(16);
            // wait for a free connection no longer than a statement may run (H2 counts whole seconds)
            pool.setLoginTimeout((int) Math.max(1, (properties.getQueryTimeout().toMillis() + 999) / 1000));
            dataSource = pool;
            owned = pool::dispose;
            log.info("Sharding store: embedded H2 database {}", properties.getEmbeddedPath().toAbsolutePath());
        }
        JdbcShardingStore store = new JdbcShardingStore(dataSource,
                JdbcStoreSettings.defaults().withTablePrefix(properties.getTablePrefix())
                        .withQueryTimeout(properties.getQueryTimeout()).validate());
        if (properties.isInitializeSchema()) {
            store.createSchema();
        }
        return owned == null ? store : new OwningStore(store, owned);
    }
}
