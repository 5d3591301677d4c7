package dev.sharding.autoconfigure.mistakes;

import dev.sharding.ShardedEntity;

/** Forgot {@code @EntityHandler}. */
@ShardedEntity
public class NoHandler {

    /**
     * Meant as a handler.
     *
     * @param text the message
     * @return the reply
     */
    public String on(String text) {
        return text;
    }
}
