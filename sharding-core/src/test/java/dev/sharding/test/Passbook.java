package dev.sharding.test;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityType;
import dev.sharding.EventSourcedState;
import dev.sharding.ShardedEntity;
import dev.sharding.StoredEvent;
import dev.sharding.spi.EventUpcaster;
import java.util.Set;

/**
 * A test entity with event-sourced state (a passbook): a balance that is the fold of its deposits and withdrawals.
 */
@ShardedEntity(type = "passbook", numberOfShards = 12)
public class Passbook {

    private final EntityContext context;

    private final EventSourcedState<Balance, Event> state;

    /**
     * Creates the entity.
     *
     * @param context its context
     */
    public Passbook(EntityContext context) {
        this.context = context;
        this.state = context.eventSourced(Balance.class, Event.class, () -> new Balance(0, 0), Passbook::apply);
    }

    /**
     * The type, with its state and events declared.
     *
     * @param upcasters the upcasters of its events
     * @return the type
     */
    public static EntityType<Passbook> type(EventUpcaster... upcasters) {
        return EntityType.of(Passbook.class, Passbook::new)
                .withState(Balance.class)
                .withEvents(Event.class, upcasters);
    }

    /** The fold: the balance after an event. */
    static Balance apply(Balance b, Event e) {
        if (e instanceof Deposited d) {
            return new Balance(b.amount() + d.amount(), b.entries() + 1);
        }
        Withdrawn w = (Withdrawn) e;
        return new Balance(b.amount() - w.amount(), b.entries() + 1);
    }

    /** Deposits; the reply comes once the event is stored. */
    @EntityHandler
    public Reply on(Deposit deposit) {
        state.persist(new Deposited(deposit.amount()), Set.of("passbook-deposits"));
        return reply();
    }

    /** Withdraws, or fails with nothing persisted when the balance is too low. */
    @EntityHandler
    public Reply on(Withdraw withdraw) {
        if (state.get().amount() < withdraw.amount()) {
            throw new IllegalArgumentException("balance too low");
        }
        state.persist(new Withdrawn(withdraw.amount()));
        return reply();
    }

    /** Persists two deposits, then fails: neither may be stored. */
    @EntityHandler
    public Reply on(DepositTwiceThenFail deposit) {
        state.persist(new Deposited(deposit.amount()));
        state.persist(new Deposited(deposit.amount()));
        throw new IllegalStateException("refused after persisting");
    }

    /** Persists several deposits at once. */
    @EntityHandler
    public Reply on(DepositMany deposit) {
        for (int i = 0; i < deposit.count(); i++) {
            state.persist(new Deposited(deposit.amount()));
        }
        return reply();
    }

    /** Reads the balance. */
    @EntityHandler
    public Reply on(Read read) {
        return reply();
    }

    /** Passivates after this message. */
    @EntityHandler
    public Reply on(Rest rest) {
        context.passivate();
        return reply();
    }

    private Reply reply() {
        Balance b = state.get();
        return new Reply(context.entityId(), b.amount(), b.entries(), state.lastSequenceNr(), context.nodeName());
    }

    /** The events. */
    public sealed interface Event permits Deposited, Withdrawn {}

    /** Money in. @param amount the amount */
    @StoredEvent(name = "deposited")
    public record Deposited(long amount) implements Event {}

    /** Money out. @param amount the amount */
    public record Withdrawn(long amount) implements Event {}

    /** The state. @param amount the balance @param entries how many events made it */
    public record Balance(long amount, long entries) {}

    /** A deposit. @param amount the amount */
    public record Deposit(long amount) {}

    /** A withdrawal. @param amount the amount */
    public record Withdraw(long amount) {}

    /** Two deposits, then a failure. @param amount each deposit */
    public record DepositTwiceThenFail(long amount) {}

    /** Several deposits in one message. @param amount each @param count how many */
    public record DepositMany(long amount, int count) {}

    /** Reads. */
    public record Read() {}

    /** Passivates. */
    public record Rest() {}

    /**
     * The answer.
     *
     * @param id entity id
     * @param amount balance
     * @param entries events folded
     * @param lastSequenceNr the last stored event's number
     * @param node where it runs
     */
    public record Reply(String id, long amount, long entries, long lastSequenceNr, String node) {}
}
