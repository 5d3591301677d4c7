package dev.sharding.spi;

import java.time.Instant;
import java.util.Set;

/**
 * An event as a store read it back from its journal ({@link EventJournal}). The payload array is the reader's own.
 *
 * @param typeName the type of the entity that appended it
 * @param entityId that entity's id
 * @param sequenceNr its number among that entity's events: 1, 2, 3... with no gap and no duplicate
 * @param globalOffset its position in the journal of the whole store: offsets increase in the order in which the
 *     appends committed, and a reader that pages by them never skips one ({@link EventJournal})
 * @param shardId the entity's shard when it was appended
 * @param eventType the name the event's class was stored under
 * @param eventVersion the version of its encoding
 * @param payload the encoded event
 * @param tags its tags
 * @param writtenAt when it was written, by the store's clock
 */
public record PersistedEvent(
        String typeName,
        String entityId,
        long sequenceNr,
        long globalOffset,
        int shardId,
        String eventType,
        int eventVersion,
        byte[] payload,
        Set<String> tags,
        Instant writtenAt) {}
