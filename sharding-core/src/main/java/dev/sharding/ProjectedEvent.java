package dev.sharding;

import java.time.Instant;
import java.util.Set;

/**
 * An event as a projection gets it ({@link Projection}).
 *
 * @param entityId the entity that persisted it
 * @param sequenceNr its number among the entity's events, from 1
 * @param offset its global offset: the projection's slice has gone this far once it is handled
 * @param shardId the entity's shard
 * @param event the event, decoded (and upcast) as the entity type's event classes are
 * @param tags its tags
 * @param writtenAt when it was appended, on the store's clock
 */
public record ProjectedEvent(
        String entityId,
        long sequenceNr,
        long offset,
        int shardId,
        Object event,
        Set<String> tags,
        Instant writtenAt) {}
