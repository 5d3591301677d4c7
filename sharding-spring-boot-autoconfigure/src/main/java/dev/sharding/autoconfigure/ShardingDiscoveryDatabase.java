package dev.sharding.autoconfigure;

import javax.sql.DataSource;

/**
 * The database whose table lists the members' addresses when {@code sharding.jgroups.discovery=jdbc}: the JDBC
 * store's, found from the store bean ({@link ShardingStoreConfigurations.JdbcDiscovery}): the auto-configured one, or
 * one the application defines with the type {@code JdbcShardingStore}. A store bean declared with another type falls
 * back to the node's own default, which is the same database when the store is a {@code JdbcShardingStore}.
 *
 * @param dataSource the database
 * @param tablePrefix the prefix of the store's tables, which the discovery table shares
 */
record ShardingDiscoveryDatabase(DataSource dataSource, String tablePrefix) {}
