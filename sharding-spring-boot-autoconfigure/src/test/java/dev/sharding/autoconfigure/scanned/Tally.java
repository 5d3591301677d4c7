package dev.sharding.autoconfigure.scanned;

import dev.sharding.EntityHandler;
import dev.sharding.ShardedEntity;

/**
 * A test entity found by scanning the auto-configuration packages; it needs no context.
 */
@ShardedEntity(type = "tally", numberOfShards = 8)
public class Tally {

    private long total;

    /**
     * Adds to the total.
     *
     * @param add how much
     * @return the new total
     */
    @EntityHandler
    public Long on(Add add) {
        this.total += add.amount();
        return this.total;
    }

    /**
     * Adds an amount.
     *
     * @param amount the amount
     */
    public record Add(long amount) {}
}
