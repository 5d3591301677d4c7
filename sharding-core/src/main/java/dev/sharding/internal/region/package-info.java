/**
 * One entity type's region on this node: routing a message to its shard's home ({@link
 * dev.sharding.internal.region.ShardRouter}), the shards hosted here, their handoffs and remembered entities. Callers'
 * threads route; the node's control thread changes where shards live. Internals; not an API.
 */
@NullMarked
package dev.sharding.internal.region;

import org.jspecify.annotations.NullMarked;
