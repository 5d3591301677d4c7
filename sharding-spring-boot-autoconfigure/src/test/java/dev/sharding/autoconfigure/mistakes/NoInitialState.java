package dev.sharding.autoconfigure.mistakes;

import dev.sharding.EntityHandler;
import dev.sharding.EntityState;
import dev.sharding.ShardedEntity;

/** A state record without a no-arg constructor, and no {@code @InitialState} method. */
@ShardedEntity
public class NoInitialState {

    private final EntityState<Level> level;

    /**
     * Creates the entity.
     *
     * @param level its state
     */
    public NoInitialState(EntityState<Level> level) {
        this.level = level;
    }

    /**
     * Raises the level.
     *
     * @param by how much
     * @return the new level
     */
    @EntityHandler
    public Long on(Long by) {
        level.update(l -> new Level(l.value() + by));
        return level.get().value();
    }

    /**
     * The state.
     *
     * @param value the level
     */
    public record Level(long value) {}
}
