package dev.sharding.spi;

import dev.sharding.ShardingException;
import java.io.Serial;

/**
 * A state write was refused because the row was written under a newer allocation of its shard: the writer no longer
 * owns the entity. Nothing was changed.
 */
public class StaleEpochException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param epoch the writer's epoch
     * @param storedEpoch the epoch of the row's last write
     */
    public StaleEpochException(String typeName, String entityId, long epoch, long storedEpoch) {
        super("Write of [" + typeName + "/" + entityId + "] under epoch " + epoch
                + " refused: the entity's shard has been allocated since (epoch " + storedEpoch + ")");
    }
}
