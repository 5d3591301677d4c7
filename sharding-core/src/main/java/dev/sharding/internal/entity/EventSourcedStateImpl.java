package dev.sharding.internal.entity;

import dev.sharding.EventSourcedState;
import dev.sharding.internal.codec.EventCodec;
import dev.sharding.internal.protocol.EntityTransfer;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.NewEvent;
import dev.sharding.spi.PersistedEvent;
import dev.sharding.spi.Recovery;
import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One entity's event-sourced state: the fold of its stored events, plus the events the current message persisted,
 * each applied at once. When the handler finishes the cell appends them together ({@link #writeThrough}), with a
 * snapshot of the state when the append crosses a multiple of the type's {@code snapshot-every}; on a failed append
 * the state goes back to the fold of the stored events. Confined to the entity's mailbox, so it needs no locks.
 *
 * @param <S> the state type
 * @param <E> the event type
 */
final class EventSourcedStateImpl<S, E> implements EventSourcedState<S, E>, HeldState {

    private final String entity;

    private final Class<S> stateType;

    private final Class<E> eventType;

    private final BiFunction<S, ? super E, S> apply;

    private final MessageCodec codec;

    private final EventCodec events;

    private final int snapshotEvery;

    /** The test mode of local round trips: each persisted event is applied as the journal would give it back. */
    private final boolean readBackEvents;

    /** The fold of the stored events. */
    private S stored;

    /** The sequence number of the last stored event. */
    private long lastSequenceNr;

    private S current;

    /**
     * The events persisted by the current message, encoded, not stored yet; made at the first event, as most live
     * entities are idle and each one costs memory.
     */
    private List<NewEvent> pending = List.of();

    EventSourcedStateImpl(
            String entity,
            Class<S> stateType,
            Class<E> eventType,
            BiFunction<S, ? super E, S> apply,
            MessageCodec codec,
            EventCodec events,
            int snapshotEvery,
            boolean readBackEvents,
            S stored,
            long lastSequenceNr) {
        this.entity = entity;
        this.stateType = stateType;
        this.eventType = eventType;
        this.apply = apply;
        this.codec = codec;
        this.events = events;
        this.snapshotEvery = snapshotEvery;
        this.readBackEvents = readBackEvents;
        this.stored = stored;
        this.current = stored;
        this.lastSequenceNr = lastSequenceNr;
    }

    /**
     * Checks that an entity asks for the state its type declares.
     *
     * @return the codec of the type's events
     * @throws IllegalStateException when the type is not event-sourced, or declares other classes
     */
    static EventCodec checkDeclared(EntityServices services, Class<?> stateType, Class<?> eventType) {
        EventCodec events = services.events();
        Class<?> declaredState = services.type().stateType();
        Class<?> declaredEvents = services.type().eventType();
        if (events == null
                || declaredState == null
                || !declaredState.equals(stateType)
                || !Objects.equals(declaredEvents, eventType)) {
            throw new IllegalStateException("Entity type " + services.type().name() + " declares "
                    + (events == null
                            ? "no events"
                            : "state " + (declaredState == null ? "none" : declaredState.getName()) + " and events "
                                    + Objects.requireNonNull(declaredEvents).getName())
                    + ", not state " + stateType.getName() + " and events " + eventType.getName()
                    + " (EntityType.withState and withEvents)");
        }
        return events;
    }

    /**
     * The state of an entity's new incarnation: what the journal gave it (its snapshot and the events after it), or
     * what the previous owner or incarnation carried (the folded state), or the initial state.
     *
     * @param recovered what the journal gave, or {@code null}
     * @param carried what was carried (or the version and ids read with the recovery), or {@code null}
     */
    static <S, E> EventSourcedStateImpl<S, E> start(
            String entity,
            Class<S> stateType,
            Class<E> eventType,
            Supplier<S> initial,
            BiFunction<S, ? super E, S> apply,
            EntityServices services,
            EventCodec events,
            @Nullable Recovery recovered,
            @Nullable EntityTransfer carried) {
        byte[] base = recovered != null
                ? (recovered.snapshot() == null ? null : recovered.snapshot().payload())
                : carried == null ? null : carried.state();
        S start = fold(
                entity,
                stateType,
                initial,
                apply,
                services.codec(),
                events,
                base,
                recovered != null ? recovered.events() : List.of(),
                eventType);
        return new EventSourcedStateImpl<>(
                entity,
                stateType,
                eventType,
                apply,
                services.codec(),
                events,
                services.snapshotEvery(),
                services.serializeLocalMessages(),
                start,
                carried == null ? 0 : carried.version());
    }

    /**
     * The state an entity starts from: a carried or snapshot state (or the initial one) with stored events applied.
     *
     * @param entity "type/id", for failure messages
     * @param stateType the state class
     * @param initial the state before the first event
     * @param apply the fold function
     * @param codec the codec the state is encoded with
     * @param events the codec of the events
     * @param base the encoded state to start from, or {@code null} for the initial one
     * @param after the stored events after it, in sequence order
     * @param <S> the state type
     * @param <E> the event type
     * @return the state
     * @throws UnreadableStateException when the base state or an event cannot be read, or the fold fails on it
     */
    static <S, E> S fold(
            String entity,
            Class<S> stateType,
            Supplier<S> initial,
            BiFunction<S, ? super E, S> apply,
            MessageCodec codec,
            EventCodec events,
            byte @Nullable [] base,
            List<PersistedEvent> after,
            Class<E> eventType) {
        S state;
        if (base == null || base.length == 0) {
            state = Objects.requireNonNull(initial.get(), "The initial state must not be null");
        } else {
            Object value;
            try {
                value = codec.decode(base, 0, base.length);
            } catch (RuntimeException e) {
                throw new UnreadableStateException("The snapshot of [" + entity + "] cannot be read as "
                        + stateType.getName() + ": " + e.getMessage() + ". The entity takes no message until it can");
            }
            if (!stateType.isInstance(value)) {
                throw new UnreadableStateException("The snapshot of [" + entity + "] is a "
                        + value.getClass().getName() + ", not a " + stateType.getName()
                        + ". The entity takes no message until it can be read");
            }
            state = stateType.cast(value);
        }
        for (PersistedEvent stored : after) {
            E event;
            try {
                event = eventType.cast(events.decode(stored));
            } catch (RuntimeException e) {
                throw new UnreadableStateException("Event " + stored.sequenceNr() + " of [" + entity
                        + "] cannot be read: " + e.getMessage() + ". The entity takes no message until it can");
            }
            state = Objects.requireNonNull(
                    apply.apply(state, event),
                    () -> "The event handler of [" + entity + "] returned null for event " + stored.sequenceNr());
        }
        return state;
    }

    Class<S> stateType() {
        return stateType;
    }

    Class<E> eventType() {
        return eventType;
    }

    @Override
    public S get() {
        return current;
    }

    @Override
    public long lastSequenceNr() {
        return lastSequenceNr + pending.size();
    }

    @Override
    public void persist(E event) {
        persist(event, Set.of());
    }

    @Override
    public void persist(E event, Set<String> tags) {
        Objects.requireNonNull(event, "event");
        NewEvent encoded = events.encode(event, tags);
        E applied = event;
        if (readBackEvents) {
            applied = eventType.cast(events.decode(encoded.eventType(), encoded.eventVersion(), encoded.payload()));
        }
        S next = apply.apply(current, applied);
        if (next == null) {
            throw new IllegalStateException("The event handler of [" + entity + "] returned null for a "
                    + event.getClass().getName());
        }
        current = next;
        if (pending.isEmpty()) {
            pending = new ArrayList<>(2);
        }
        pending.add(encoded);
    }

    @Override
    public boolean isDirty() {
        return !pending.isEmpty();
    }

    @Override
    public void discard() {
        current = stored;
        pending = List.of();
    }

    @Override
    public CompletableFuture<Void> writeThrough(
            ShardingStore store, String typeName, String entityId, int shardId, long epoch, byte @Nullable [] applied) {
        List<NewEvent> appending = pending;
        pending = List.of();
        long from = lastSequenceNr;
        long last = from + appending.size();
        S state = current;
        Snapshot snapshot = null;
        if (snapshotEvery > 0 && last / snapshotEvery != from / snapshotEvery) {
            try {
                snapshot = new Snapshot(last, codec.encode(state));
            } catch (RuntimeException e) {
                current = stored; // not a failure of the store: thrown, so that the caller tells the two apart
                throw e;
            }
        }
        CompletableFuture<Long> append;
        try {
            append = store.appendEvents(typeName, entityId, shardId, epoch, from, appending, applied, snapshot);
        } catch (RuntimeException e) {
            append = CompletableFuture.failedFuture(e);
        }
        return append.handle((newLast, failure) -> {
            if (failure != null) {
                current = stored;
                throw DurableEntityState.rethrown(failure);
            }
            stored = state;
            lastSequenceNr = newLast;
            return null;
        });
    }

    @Override
    public byte @Nullable [] storedBytes() {
        return lastSequenceNr == 0 ? null : codec.encode(stored);
    }

    @Override
    public long storedVersion() {
        return lastSequenceNr;
    }
}
