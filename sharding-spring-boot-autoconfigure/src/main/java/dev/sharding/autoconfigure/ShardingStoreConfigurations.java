package dev.sharding.autoconfigure;

import dev.sharding.spi.ShardingStore;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.store.JdbcShardingStore;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The store of entity state, shard epochs and remembered entities, one configuration per kind of store, imported by
 * {@link ShardingAutoConfiguration} in this order; the first whose conditions hold makes the store, and every one backs
 * off when the application defines its own {@link ShardingStore}:
 *
 * <ol>
 * <li>{@link InMemory}: {@code sharding.store.type=memory}.</li>
 * <li>{@link ApplicationDataSource}: JDBC over the DataSource marked {@link ShardingDataSource}, else the
 * application's only or primary one.</li>
 * <li>{@link EmbeddedH2}: JDBC over an embedded H2 file database, for an application with no DataSource; the
 * database, which owns its connection pool, is a bean of its own ({@link EmbeddedH2Database}), closed after
 * the store.</li>
 * </ol>
 *
 * <p>A JDBC store is made after the database initializers (Flyway, Liquibase, Boot's SQL scripts) and closed when the
 * context closes, after the node has left. {@link JdbcDiscovery} then names its database as the one JGroups' JDBC
 * discovery uses ({@code sharding.jgroups.discovery=jdbc}).
 */
final class ShardingStoreConfigurations {

    private static final String STORE_TYPE = "sharding.store.type";

    private ShardingStoreConfigurations() {}

    /** Entity state in each node's memory, without durability. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(ShardingStore.class)
    @ConditionalOnProperty(name = STORE_TYPE, havingValue = "memory")
    static class InMemory {

        @Bean(destroyMethod = "close")
        InMemoryShardingStore shardingStore() {
            return new InMemoryShardingStore();
        }
    }

    /** JDBC over the application's DataSource, checked before the node uses it. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(ShardingStore.class)
    @ConditionalOnBean(DataSource.class)
    @ConditionalOnProperty(name = STORE_TYPE, havingValue = "jdbc", matchIfMissing = true)
    static class ApplicationDataSource {

        @Bean(destroyMethod = "close")
        @DependsOnDatabaseInitialization
        JdbcShardingStore shardingStore(
                ShardingProperties properties,
                @ShardingDataSource ObjectProvider<DataSource> shardingDataSource,
                ObjectProvider<DataSource> dataSources,
                ListableBeanFactory beanFactory) {
            DataSource dataSource = ShardingDataSources.choose(shardingDataSource, dataSources, beanFactory);
            if (dataSource == null) {
                // the condition saw a DataSource bean that may not be injected (not an autowire candidate)
                throw new ShardingConfigurationException(
                        "The sharding store found no DataSource it may use among the application's DataSource beans.",
                        "Mark the DataSource bean meant for entity state, shard epochs and remembered entities "
                                + "@ShardingDataSource, or set sharding.store.type=memory.",
                        null);
            }
            return JdbcStores.overApplicationDataSource(properties.getStore(), dataSource);
        }
    }

    /** JDBC over an embedded H2 file database, for an application with no DataSource. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean({ShardingStore.class, DataSource.class})
    @ConditionalOnProperty(name = STORE_TYPE, havingValue = "jdbc", matchIfMissing = true)
    static class EmbeddedH2 {

        /**
         * The embedded database, which owns its connection pool and closes it after the store.
         *
         * @param properties the bound properties
         * @param environment for {@code spring.datasource.url}, which names a database the store would not use
         * @return the database
         */
        @Bean(destroyMethod = "close")
        EmbeddedH2Database shardingEmbeddedH2Database(ShardingProperties properties, Environment environment) {
            return new EmbeddedH2Database(
                    JdbcStores.embeddedPool(properties.getStore(), environment.getProperty("spring.datasource.url")));
        }

        @Bean(destroyMethod = "close")
        @DependsOnDatabaseInitialization
        JdbcShardingStore shardingStore(ShardingProperties properties, EmbeddedH2Database shardingEmbeddedH2Database) {
            return JdbcStores.overEmbeddedDatabase(properties.getStore(), shardingEmbeddedH2Database.pool());
        }
    }

    /** The database of a JDBC store, the application's or one it defined, for JGroups' JDBC discovery. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(JdbcShardingStore.class)
    static class JdbcDiscovery {

        @Bean
        @ConditionalOnMissingBean
        ShardingDiscoveryDatabase shardingDiscoveryDatabase(JdbcShardingStore store) {
            return new ShardingDiscoveryDatabase(store.dataSource(), store.tablePrefix());
        }
    }
}
