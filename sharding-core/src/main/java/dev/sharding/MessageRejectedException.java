package dev.sharding;

import java.io.Serial;

/**
 * A message or reply was refused by the codec: a type nobody declared, a payload over the size limit, or bytes that do not decode. Nothing was delivered.
 */
public class MessageRejectedException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what went wrong
     */
    public MessageRejectedException(String message) {
        super(message);
    }
}
