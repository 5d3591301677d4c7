package dev.sharding.scale;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityState;
import dev.sharding.InitialState;
import dev.sharding.ShardedEntity;
import dev.sharding.bench.Add;
import dev.sharding.bench.Get;
import dev.sharding.bench.Total;

/**
 * W8's entity: {@link dev.sharding.bench.Counter} with its total and count in a durable {@link EntityState}, so that an acknowledged
 * {@link Add} survives a crash of the node that hosted it and W8 can count what a crash lost. Its shards are set per
 * run ({@code sharding.entities.tally.number-of-shards}). It lives outside the bench application's package, so that only the
 * nodes of W8 run it (they import it); the nodes of the other workloads do not.
 */
@ShardedEntity(type = "tally")
public class Tally {

    private final EntityContext context;

    private final EntityState<State> state;

    /**
     * Creates the tally of one id; the node does this when the id's first message arrives.
     *
     * @param context the entity's id
     * @param state its durable state
     */
    public Tally(EntityContext context, EntityState<State> state) {
        this.context = context;
        this.state = state;
    }

    /**
     * The state of a tally never seen.
     *
     * @return zero
     */
    @InitialState
    static State empty() {
        return new State(0, 0);
    }

    /**
     * Adds the amount; the reply waits until the new state is stored.
     *
     * @param add the message
     * @return the new state
     */
    @EntityHandler
    public Total on(Add add) {
        State s = state.get();
        State next = new State(s.total() + add.amount(), s.count() + 1);
        state.set(next);
        return new Total(context.entityId(), next.total(), next.count());
    }

    /**
     * Tells the state.
     *
     * @param get the query
     * @return the state
     */
    @EntityHandler
    public Total on(Get get) {
        State s = state.get();
        return new Total(context.entityId(), s.total(), s.count());
    }

    /**
     * A tally's durable state.
     *
     * @param total the sum of every amount added
     * @param count how many adds were applied
     */
    public record State(long total, long count) {}
}
