package dev.sharding;

/**
 * What an entity knows about itself: its id, its shard and its type. Given to an entity when it is created.
 */
public interface EntityContext {

    /**
     * The entity type name.
     *
     * @return the type name
     */
    String typeName();

    /**
     * The entity id.
     *
     * @return the id
     */
    String entityId();

    /**
     * The shard the entity belongs to.
     *
     * @return the shard id, from 0 to the type's number of shards minus one
     */
    int shardId();

    /**
     * The name of the node the entity runs on.
     *
     * @return the node name
     */
    String nodeName();

    /**
     * Stops this entity after the current message (its state is already stored): its {@code @PreDestroy} runs and it
     * takes no more memory. Messages that arrive meanwhile are kept and start a new incarnation; none is lost.
     */
    void passivate();

    /**
     * The entity's durable state. The entity type must declare its state type
     * ({@link EntityType#withState(Class)}; the Spring starter does so for an {@code EntityState<S>} constructor
     * parameter). Call it when the entity is created; every call returns the same handle.
     *
     * @param stateType the state class, the one the type declares
     * @param initial the value of an entity whose state was never stored
     * @param <S> the state type
     * @return the state
     * @throws IllegalStateException if the type declares no state, or another state class
     */
    <S> EntityState<S> state(Class<S> stateType, java.util.function.Supplier<S> initial);

    /**
     * The entity's event-sourced state. The entity type must declare its state and event types
     * ({@link EntityType#withState(Class)} and {@link EntityType#withEvents}; the Spring starter does so for an
     * {@code EventSourcedState<S, E>} constructor parameter). Call it when the entity is created; every call returns
     * the same handle.
     *
     * @param stateType the state class, the one the type declares
     * @param eventType the event type, the one the type declares
     * @param initial the state before the first event
     * @param apply the state after an event: a pure function of the state and the event, run again on recovery
     * @param <S> the state type
     * @param <E> the event type
     * @return the state
     * @throws IllegalStateException if the type is not event-sourced, or declares other classes
     */
    <S, E> EventSourcedState<S, E> eventSourced(
            Class<S> stateType,
            Class<E> eventType,
            java.util.function.Supplier<S> initial,
            java.util.function.BiFunction<S, ? super E, S> apply);
}
