package dev.sharding.spi;

import dev.sharding.EntityContext;

/**
 * Makes and disposes of the instances of one entity type.
 *
 * @param <T> the entity class
 */
public interface EntityFactory<T> {

    /**
     * Creates the instance for one entity id. Runs on an entity thread when the entity's first message is handled.
     *
     * @param context the entity's id, shard and type
     * @return the instance
     */
    T create(EntityContext context);

    /**
     * Disposes of an instance when its entity stops (its node stops, or later its shard moves or it passivates).
     *
     * @param entity the instance
     */
    default void destroy(T entity) {}
}
