/**
 * Contract tests every {@link dev.sharding.spi.ShardingStore} implementation runs, and what they need (fault
 * injection for stores in a database). A user who writes a store extends
 * {@link dev.sharding.boot.test.store.ShardingStoreContract} in a test, as the built-in stores' tests do.
 */
@NullMarked
package dev.sharding.boot.test.store;

import org.jspecify.annotations.NullMarked;
