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

    /**
     * The system property H2 binds its server sockets to, read once when H2 loads. AUTO_SERVER's server allows
     * other hosts, so without it the port would listen on every interface.
     */
    static final String H2_BIND_ADDRESS = "h2.bindAddress";

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
            bindEmbeddedServerToLoopback();
            String url = "jdbc:h2:file:" + properties.getEmbeddedPath().toAbsolutePath() + EMBEDDED_H2_OPTIONS;
            org.h2.jdbcx.JdbcConnectionPool pool = org.h2.jdbcx.JdbcConnectionPool.create(url, "sa", "");
            pool.setMaxConnections(16);
            dataSource = pool;
            owned = pool::dispose;
            log.info("Sharding store: embedded H2 database {}", properties.getEmbeddedPath().toAbsolutePath());
        }
        JdbcShardingStore store = new JdbcShardingStore(dataSource,
                JdbcStoreSettings.defaults().withTablePrefix(properties.getTablePrefix()).validate());
        if (properties.isInitializeSchema()) {
            store.createSchema();
        }
        return owned == null ? store : new OwningStore(store, owned);
    }

    /**
     * Makes the embedded database's AUTO_SERVER port listen on the loopback address only, unless the application set
     * {@value #H2_BIND_ADDRESS} itself; warns when H2 was loaded before with no such setting, too late to change.
     */
    static void bindEmbeddedServerToLoopback() {
        if (System.getProperty(H2_BIND_ADDRESS) == null) {
            System.setProperty(H2_BIND_ADDRESS, "127.0.0.1");
        }
        String bound = org.h2.engine.SysProperties.BIND_ADDRESS;
        if (bound == null || bound.isEmpty()) {
            log.warn("The embedded H2 database's server port (AUTO_SERVER) listens on every interface: H2 was loaded"
                    + " before the sharding store set -D{}=127.0.0.1; set it on the command line", H2_BIND_ADDRESS);
        } else {
            log.debug("The embedded H2 database's server port listens on {}", bound);
        }
    }
}
