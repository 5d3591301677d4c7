package dev.sharding.bench;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityType;
import dev.sharding.EventSourcedState;
import dev.sharding.StoredEvent;

/**
 * E1's entity: an event-sourced ledger whose state (a total and a count) is the fold of its entries, so that its
 * recovery reads a snapshot and the events after it, or every event when snapshots are off.
 */
final class Ledger {

    /** The events of a ledger. */
    sealed interface Event permits Entered {}

    /** @param amount how much was entered */
    @StoredEvent(name = "entered")
    record Entered(long amount) implements Event {}

    /** The state. @param total the sum of the entries @param count how many */
    record Sums(long total, long count) {}

    /** Enters {@code count} entries of {@code amount} each, persisted before the reply. */
    record Enter(int count, long amount) {}

    /** Reads the sums (activating, so recovering, the ledger if it is not live). */
    record Read() {}

    /** Passivates the ledger after the reply. */
    record Rest() {}

    private final EntityContext context;

    private final EventSourcedState<Sums, Event> state;

    Ledger(EntityContext context) {
        this.context = context;
        this.state = context.eventSourced(Sums.class, Event.class, () -> new Sums(0, 0), Ledger::apply);
    }

    static EntityType<Ledger> type() {
        return EntityType.of(Ledger.class, Ledger::new)
                .withName("ledger")
                .withState(Sums.class)
                .withEvents(Event.class);
    }

    static Sums apply(Sums s, Event e) {
        Entered entered = (Entered) e;
        return new Sums(s.total() + entered.amount(), s.count() + 1);
    }

    @EntityHandler
    public Sums on(Enter enter) {
        for (int i = 0; i < enter.count(); i++) {
            state.persist(new Entered(enter.amount()));
        }
        return state.get();
    }

    @EntityHandler
    public Sums on(Read read) {
        return state.get();
    }

    @EntityHandler
    public Sums on(Rest rest) {
        context.passivate();
        return state.get();
    }
}
