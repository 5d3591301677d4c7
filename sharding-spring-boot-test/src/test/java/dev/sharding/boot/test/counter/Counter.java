package dev.sharding.boot.test.counter;

import dev.sharding.EntityHandler;
import dev.sharding.ShardedEntity;

/** A counter entity: adds what it is sent and answers the total. */
@ShardedEntity(numberOfShards = 10)
public class Counter {

    private long total;

    /** An amount to add. @param amount the amount */
    public record Add(long amount) {}

    /** The total so far. @param total the total */
    public record Total(long total) {}

    /** A detail of a note: an interface that is not sealed, so the codec cannot tell which class to decode. */
    public interface Detail {}

    /** A detail. @param name its name */
    public record Colour(String name) implements Detail {}

    /**
     * A note with a detail: it encodes, but does not decode, because its field's type is an interface.
     *
     * @param text the text
     * @param detail the detail
     */
    public record Note(String text, Detail detail) {}

    /**
     * Adds an amount.
     *
     * @param add the amount
     * @return the new total
     */
    @EntityHandler
    public Total on(Add add) {
        total += add.amount();
        return new Total(total);
    }

    /**
     * Takes a note, which changes nothing.
     *
     * @param note the note
     * @return the total
     */
    @EntityHandler
    public Total on(Note note) {
        return new Total(total);
    }
}
