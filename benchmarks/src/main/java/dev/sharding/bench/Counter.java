package dev.sharding.bench;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.ShardedEntity;

/**
 * The benchmark entity, written as any user of the starter writes one: a prototype bean per entity id with a
 * {@code long total} and a {@code long count}, reached through {@code ShardRegion<Counter>}. Shards: the default
 * number (100), so that the shard of {@code "e-" + i} is {@code floorMod(id.hashCode(), 100)} as the workloads say.
 */
@ShardedEntity
public class Counter {

    private final EntityContext context;

    private long total;

    private long count;

    /**
     * Creates the counter of one id; the node does this when the id's first message arrives.
     *
     * @param context the entity's id
     */
    public Counter(EntityContext context) {
        this.context = context;
    }

    /**
     * Adds the amount.
     *
     * @param add the message
     * @return the new state, the reply when the message was an ask (a tell drops it)
     */
    @EntityHandler
    public Total on(Add add) {
        total += add.amount();
        count++;
        return new Total(context.entityId(), total, count);
    }

    /**
     * Tells the state.
     *
     * @param get the query
     * @return the state
     */
    @EntityHandler
    public Total on(Get get) {
        return new Total(context.entityId(), total, count);
    }
}
