package dev.sharding.test;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityState;
import dev.sharding.EntityType;
import dev.sharding.ShardedEntity;
import dev.sharding.spi.EntityFactory;

/**
 * A test entity with a durable balance whose every incarnation is recorded in an {@link OwnerLog}: for partition
 * tests, which check that no acknowledged deposit is lost and that an entity never lives in two places at once.
 */
@ShardedEntity(type = "ledger", numberOfShards = 30)
public class Ledger {

    private final EntityContext context;

    private final EntityState<Balance> state;

    private final OwnerLog.Life life;

    Ledger(EntityContext context, OwnerLog log) {
        this.context = context;
        this.state = context.state(Balance.class, () -> new Balance(0));
        this.life = log.activated(context.entityId(), context.nodeName());
    }

    /**
     * The type, recording into a log.
     *
     * @param log where incarnations go
     * @return the type
     */
    public static EntityType<Ledger> type(OwnerLog log) {
        return EntityType.of(Ledger.class, new EntityFactory<Ledger>() {
                    @Override
                    public Ledger create(EntityContext ctx) {
                        return new Ledger(ctx, log);
                    }

                    @Override
                    public void destroy(Ledger entity) {
                        entity.life.stopped();
                    }
                })
                .withState(Balance.class);
    }

    /** Deposits; the reply goes out once the new balance is stored. */
    @EntityHandler
    public Receipt on(Deposit deposit) {
        life.handled();
        state.update(b -> new Balance(b.amount() + deposit.amount()));
        return new Receipt(context.entityId(), state.get().amount(), context.nodeName());
    }

    /** Reads the balance. */
    @EntityHandler
    public Receipt on(Read read) {
        life.handled();
        return new Receipt(context.entityId(), state.get().amount(), context.nodeName());
    }

    /** The stored state. @param amount the balance */
    public record Balance(long amount) {}

    /** Adds to the balance. @param amount how much */
    public record Deposit(long amount) {}

    /** Asks for the balance. */
    public record Read() {}

    /** The answer. @param id the entity @param balance its balance @param node where it runs */
    public record Receipt(String id, long balance, String node) {}
}
