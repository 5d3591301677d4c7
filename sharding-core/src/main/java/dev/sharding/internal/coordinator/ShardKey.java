package dev.sharding.internal.coordinator;

/**
 * One shard of one entity type, as the coordinator keys its tables.
 *
 * @param typeName the entity type
 * @param shardId the shard
 */
public record ShardKey(String typeName, int shardId) {}
