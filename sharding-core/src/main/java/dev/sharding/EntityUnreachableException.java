package dev.sharding;

import java.io.Serial;

/**
 * The node that hosted the entity (or was about to) left or crashed before replying; the message may or may not have been handled. A retry reaches the entity's new home.
 */
public class EntityUnreachableException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what went wrong
     */
    public EntityUnreachableException(String message) {
        super(message);
    }
}
