package dev.sharding.autoconfigure.locality;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.ShardedEntity;

/** An order, placed by its customer. */
@ShardedEntity(type = "customerOrder", numberOfShards = 16, shardIdFunction = CustomerShards.class)
public class CustomerOrder {

    private final EntityContext context;

    /**
     * Creates the entity.
     *
     * @param context its context
     */
    public CustomerOrder(EntityContext context) {
        this.context = context;
    }

    /**
     * Answers the shard it lives in.
     *
     * @param where the question
     * @return the shard
     */
    @EntityHandler
    public Integer on(Where where) {
        return this.context.shardId();
    }

    /** Asks for the shard. */
    public record Where() {}
}
