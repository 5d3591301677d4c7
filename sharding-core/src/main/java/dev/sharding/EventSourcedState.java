package dev.sharding;

import java.util.Set;

/**
 * The event-sourced state of one entity: the state is the fold of the entity's events, from its initial state,
 * through the pure function the entity declares ({@link EntityContext#eventSourced}). A handler {@linkplain #persist
 * persists} events; each is applied to the state at once, so the rest of the handler sees the new state, and all the
 * events of one message are appended to the entity's journal together when the handler finishes. The reply (and the
 * entity's next message) waits until they are durable; if they cannot be stored, the message fails with no effect and
 * the state goes back to what is stored.
 *
 * <p>After a crash the state is recovered from the latest snapshot and the events after it; on a planned move it goes
 * with its shard, without a replay. The store keeps a snapshot every {@code sharding.entities.<type>.snapshot-every}
 * events. Events are read back per entity, by tag, and by slice (a range of the type's shards) for projections.
 *
 * <p>Used only from the entity's own handlers, one message at a time.
 *
 * @param <S> the state type, encoded like messages (declared to the codec automatically)
 * @param <E> the event type: a class, or a sealed interface whose permitted classes are the events; each event class
 *     is stored under its name ({@link StoredEvent})
 */
public interface EventSourcedState<S, E> {

    /**
     * The current state: the fold of every event persisted so far, including those of the current message.
     *
     * @return the state
     */
    S get();

    /**
     * The sequence number of the entity's last event (0 before its first), counting the events the current message
     * persisted: they are stored before its reply goes, and the reply never goes if they are not. Events are numbered
     * from 1 with no gap.
     *
     * @return the sequence number
     */
    long lastSequenceNr();

    /**
     * Persists an event: applies it to the state now, and appends it to the journal with the current message's other
     * events when the handler finishes.
     *
     * @param event the event, an instance of a declared event class
     * @throws IllegalArgumentException if the event's class is not one of the type's event classes
     */
    void persist(E event);

    /**
     * Persists an event with tags, by which readers find it across entities ({@code eventsByTag}).
     *
     * @param event the event
     * @param tags the tags, at most 16, each 1 to 255 characters
     * @throws IllegalArgumentException if the event's class is not declared, or a tag breaks the rules
     */
    void persist(E event, Set<String> tags);
}
