/**
 * Built-in {@link dev.sharding.spi.ShardingStore} implementations; not an API.
 */
@NullMarked
package dev.sharding.internal.store;

import org.jspecify.annotations.NullMarked;
