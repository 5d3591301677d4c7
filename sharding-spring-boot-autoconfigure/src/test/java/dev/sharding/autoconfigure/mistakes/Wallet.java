package dev.sharding.autoconfigure.mistakes;

import dev.sharding.EntityHandler;
import dev.sharding.ShardedEntity;

/** Takes a message class that works in one JVM and fails between two. */
@ShardedEntity
public class Wallet {

    private long total;

    /**
     * Adds an amount.
     *
     * @param amount the message
     * @return the new total
     */
    @EntityHandler
    public Long on(Amount amount) {
        total += amount.getValue();
        return total;
    }

    /**
     * A message with a field of type Object.
     *
     * @param payload whatever it carries
     */
    public record Envelope(Object payload) {}

    /**
     * Opens an envelope.
     *
     * @param envelope the message
     * @return what it carried, as text
     */
    @EntityHandler
    public String on(Envelope envelope) {
        return String.valueOf(envelope.payload());
    }
}
