package com.example.tally;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityState;
import dev.sharding.InitialState;
import dev.sharding.ShardedEntity;

@ShardedEntity(type = "tally")
public class Tally {

    private final EntityContext context;

    private final EntityState<TallyState> state;

    public Tally(EntityContext context, EntityState<TallyState> state) {
        this.context = context;
        this.state = state;
    }

    @InitialState
    static TallyState empty() {
        return new TallyState(0);
    }

    @EntityHandler
    public Total on(Add add) {
        state.update(s -> new TallyState(s.value() + add.amount()));
        return new Total(context.entityId(), state.get().value());
    }
}
