package dev.sharding.test;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityState;
import dev.sharding.EntityType;
import dev.sharding.ShardedEntity;

/**
 * A test entity with durable state: a balance that must survive handoffs, crashes and restarts.
 */
@ShardedEntity(type = "wallet", numberOfShards = 12)
public class Wallet {

    private final EntityContext context;

    private final EntityState<Balance> state;

    /**
     * Creates the entity.
     *
     * @param context its context
     */
    public Wallet(EntityContext context) {
        this.context = context;
        this.state = context.state(Balance.class, () -> new Balance(0, 0));
    }

    /**
     * The type, with its state declared.
     *
     * @return the type
     */
    public static EntityType<Wallet> type() {
        return EntityType.of(Wallet.class, new dev.sharding.spi.EntityFactory<Wallet>() {
                    @Override
                    public Wallet create(EntityContext ctx) {
                        CREATED.incrementAndGet();
                        return new Wallet(ctx);
                    }

                    @Override
                    public void destroy(Wallet entity) {
                        DESTROYED.incrementAndGet();
                    }
                })
                .withState(Balance.class);
    }

    /** Instances created in this JVM. */
    public static final java.util.concurrent.atomic.AtomicInteger CREATED =
            new java.util.concurrent.atomic.AtomicInteger();

    /** Instances destroyed in this JVM (stopped or passivated). */
    public static final java.util.concurrent.atomic.AtomicInteger DESTROYED =
            new java.util.concurrent.atomic.AtomicInteger();

    /** Passivates the entity after this message. */
    @EntityHandler
    public Reply on(Rest rest) {
        context.passivate();
        return reply();
    }

    /** Asks the entity to passivate itself. */
    public record Rest() {}

    /** Adds an amount; the reply comes once the new balance is stored. */
    @EntityHandler
    public Reply on(Deposit deposit) {
        state.update(b -> new Balance(b.amount() + deposit.amount(), b.deposits() + 1));
        return reply();
    }

    /** Changes the balance, then fails: the change must not be stored. */
    @EntityHandler
    public Reply on(DepositThenFail deposit) {
        state.update(b -> new Balance(b.amount() + deposit.amount(), b.deposits() + 1));
        throw new IllegalStateException("refused after changing the state");
    }

    /** A deposit whose handler fails after changing the state. @param amount the amount */
    public record DepositThenFail(long amount) {}

    /** Reads the balance. */
    @EntityHandler
    public Reply on(Read read) {
        return reply();
    }

    /** Forgets the balance. */
    @EntityHandler
    public Reply on(Close close) {
        state.clear();
        return reply();
    }

    private Reply reply() {
        Balance b = state.get();
        return new Reply(context.entityId(), b.amount(), b.deposits(), context.nodeName());
    }

    /** The stored state. @param amount the balance @param deposits how many deposits made it */
    public record Balance(long amount, long deposits) {}

    /** A deposit. @param amount the amount */
    public record Deposit(long amount) {}

    /** Reads the balance. */
    public record Read() {}

    /** Removes the balance. */
    public record Close() {}

    /** The answer. @param id entity id @param amount balance @param deposits deposits @param node where it runs */
    public record Reply(String id, long amount, long deposits, String node) {}
}
