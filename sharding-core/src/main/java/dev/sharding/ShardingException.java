package dev.sharding;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * The root of every failure cluster sharding reports to a caller.
 */
public class ShardingException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception with a message.
     *
     * @param message what went wrong
     */
    public ShardingException(String message) {
        super(message);
    }

    /**
     * Creates an exception with a message and a cause.
     *
     * @param message what went wrong
     * @param cause the cause
     */
    public ShardingException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
