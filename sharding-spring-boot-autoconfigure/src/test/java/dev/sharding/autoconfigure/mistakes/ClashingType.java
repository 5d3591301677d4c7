package dev.sharding.autoconfigure.mistakes;

import dev.sharding.EntityHandler;
import dev.sharding.ShardedEntity;

/** Takes the type name "greeter", which the test entity Greeter has by default. */
@ShardedEntity(type = "greeter")
public class ClashingType {

    /**
     * The handler.
     *
     * @param text the message
     * @return the reply
     */
    @EntityHandler
    public String on(String text) {
        return text;
    }
}
