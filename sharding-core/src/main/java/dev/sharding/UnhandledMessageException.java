package dev.sharding;

import java.io.Serial;

/**
 * The entity has no {@link EntityHandler} for the message's type.
 */
public class UnhandledMessageException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what went wrong
     */
    public UnhandledMessageException(String message) {
        super(message);
    }
}
