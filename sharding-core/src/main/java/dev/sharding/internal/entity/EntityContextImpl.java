package dev.sharding.internal.entity;

import dev.sharding.EntityContext;
import dev.sharding.EntityState;
import dev.sharding.EventSourcedState;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * What an entity instance sees of its place in the cluster ({@link EntityContext}): its identity, its durable state,
 * and the request to passivate. One per live entity cell, handed to the factory when an instance is created; every
 * call goes to the cell, on the entity's own thread.
 */
final class EntityContextImpl implements EntityContext {

    private final EntityCell cell;

    EntityContextImpl(EntityCell cell) {
        this.cell = cell;
    }

    @Override
    public void passivate() {
        cell.requestPassivation();
    }

    @Override
    public <S> EntityState<S> state(Class<S> stateType, Supplier<S> initial) {
        return cell.state(stateType, initial);
    }

    @Override
    public <S, E> EventSourcedState<S, E> eventSourced(
            Class<S> stateType, Class<E> eventType, Supplier<S> initial, BiFunction<S, ? super E, S> apply) {
        return cell.eventSourced(stateType, eventType, initial, apply);
    }

    @Override
    public String typeName() {
        return cell.typeName();
    }

    @Override
    public String entityId() {
        return cell.entityId();
    }

    @Override
    public int shardId() {
        return cell.shardId();
    }

    @Override
    public String nodeName() {
        return cell.nodeName();
    }

    @Override
    public String toString() {
        return cell.toString();
    }
}
