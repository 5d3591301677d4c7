package dev.sharding;

import java.io.Serial;

/**
 * A message was sent with an id ({@link ShardRegion#ask(String, Object, Class, String)}) that the entity applied lately
 * to another message: a different message, or the same type with other fields, whose encoding differs. Nothing was
 * applied, and the first message's reply is not given, since it answered another request. A message id stands for one
 * message: give each new message a new id, and send the same message again with the same id only to repeat it.
 */
public class IdempotencyKeyReusedException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message which id, and where it was applied
     */
    public IdempotencyKeyReusedException(String message) {
        super(message);
    }
}
