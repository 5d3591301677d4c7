package dev.sharding;

import java.io.Serial;

/**
 * The store lost its connection to the database while it committed the entity's state (the connection broke, or the
 * database stopped answering, during the commit itself): the message's effect may have been stored, or not, and nobody
 * can tell until the state is read again. The entity reads its state from the store before its next message, so it
 * goes on from whatever the database holds. Not safe to retry blindly: a message sent again without an idempotency key
 * may apply twice. Retry it with the same key ({@link ShardRegion#ask(String, Object, Class, String)}): the entity
 * then answers the recorded reply if the first attempt was stored, and applies it if it was not.
 */
public class StoreOutcomeUnknownException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what was being committed, with the store's failure
     */
    public StoreOutcomeUnknownException(String message) {
        super(message);
    }

    /**
     * Creates the exception.
     *
     * @param message what was being committed, with the store's failure
     * @param cause the failure of the commit
     */
    public StoreOutcomeUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}
