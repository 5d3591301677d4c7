package dev.sharding;

import java.io.Serial;

/**
 * The entity's state could not be stored, or read for the entity to start, because the store failed (the database
 * is down, cut off or too slow, or the node serving an embedded database moved): the message had no effect, and the
 * same message sent again may succeed once the store answers. Retryable, unlike an {@link EntityException}, which
 * says the entity refused the message. A write refused because the entity's shard moved to another node is not a
 * store failure: it fails with an {@link EntityException} naming {@code StaleEpochException}.
 */
public class StoreUnavailableException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what failed, with the store's failure
     */
    public StoreUnavailableException(String message) {
        super(message);
    }
}
