package dev.sharding;

import java.io.Serial;

/**
 * No reply arrived within the ask's timeout. The message may or may not have been handled.
 */
public class AskTimeoutException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what went wrong
     */
    public AskTimeoutException(String message) {
        super(message);
    }
}
