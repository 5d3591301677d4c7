/**
 * Contract tests every {@link dev.sharding.spi.ShardingStore} implementation runs, and what they need (fault
 * injection for stores in a database). Published in core's test-jar.
 */
@NullMarked
package dev.sharding.test.store;

import org.jspecify.annotations.NullMarked;
