package dev.sharding.autoconfigure.mistakes;

import dev.sharding.EntityHandler;
import dev.sharding.ShardedEntity;

/** Two handlers of one message type. */
@ShardedEntity
public class TwoHandlers {

    /**
     * One handler.
     *
     * @param text the message
     * @return the reply
     */
    @EntityHandler
    public String on(String text) {
        return text;
    }

    /**
     * Another.
     *
     * @param text the message
     */
    @EntityHandler
    public void also(String text) {}
}
