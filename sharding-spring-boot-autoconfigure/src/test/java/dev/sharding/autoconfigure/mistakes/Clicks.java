package dev.sharding.autoconfigure.mistakes;

import dev.sharding.EntityHandler;
import dev.sharding.EntityState;
import dev.sharding.ShardedEntity;

/** Keeps a state class whose value Jackson does not write: it would read back as 0 after a restart. */
@ShardedEntity
public class Clicks {

    private final EntityState<Count> count;

    /**
     * Creates the entity.
     *
     * @param count its state
     */
    public Clicks(EntityState<Count> count) {
        this.count = count;
    }

    /**
     * Counts a click.
     *
     * @param click the message
     * @return the count
     */
    @EntityHandler
    public Integer on(Click click) {
        count.update(Count::next);
        return count.get().value();
    }

    /** The message. */
    public record Click() {}

    /** The state: a private field, no getter, no creator. */
    public static class Count {

        private int value;

        /**
         * The count.
         *
         * @return the count
         */
        public int value() {
            return value;
        }

        Count next() {
            Count next = new Count();
            next.value = value + 1;
            return next;
        }
    }
}
