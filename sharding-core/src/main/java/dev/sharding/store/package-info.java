/**
 * The built-in {@link dev.sharding.spi.ShardingStore}s, public API:
 *
 * <ul>
 * <li>{@link dev.sharding.store.JdbcShardingStore}, for production: every node of a cluster shares one H2 or
 * PostgreSQL database; build it with {@link dev.sharding.store.JdbcShardingStore#builder(javax.sql.DataSource)} and
 * tune it with {@link dev.sharding.store.JdbcStoreSettings};</li>
 * <li>{@link dev.sharding.store.InMemoryShardingStore}, for a single process: tests, and nodes that share one JVM.</li>
 * </ul>
 *
 * <p>The other classes of this package are the JDBC store's implementation and not visible outside it. The Spring
 * Boot starter builds the store from the application's {@code DataSource}; build one by hand only without it, or
 * for a {@code ShardingStore} bean of your own.
 */
@NullMarked
package dev.sharding.store;

import org.jspecify.annotations.NullMarked;
