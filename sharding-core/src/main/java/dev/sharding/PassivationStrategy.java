package dev.sharding;

/**
 * How an entity type's live entities are chosen for passivation when there are too many on a node
 * ({@code sharding.entities.<type>.passivation.strategy}). Every strategy also passivates entities idle for the
 * type's idle timeout, unless that is zero.
 */
public enum PassivationStrategy {

    /**
     * Entities are passivated when idle for the idle timeout; beyond the type's own limit, when it has one
     * ({@code sharding.entities.<type>.passivation.active-entity-limit}), the least recently used go first. The
     * default.
     */
    IDLE(false),

    /**
     * Beyond the type's share of {@code sharding.passivation.active-entity-limit} (or its own limit), the entities
     * that took a message least recently go first. Suits most workloads where recent use predicts the next.
     */
    LEAST_RECENTLY_USED(true),

    /**
     * Beyond the type's share of the limit, the entities that took a message most recently go first. Suits cyclic
     * access over more entities than the limit (a scan, a round robin), where the entity just used is the one needed
     * last.
     */
    MOST_RECENTLY_USED(true),

    /**
     * Beyond the type's share of the limit, the entities that took the fewest messages since they started here go
     * first (the least recently used among equals). Suits skewed access, where a few entities take most messages.
     */
    LEAST_FREQUENTLY_USED(true);

    private final boolean limited;

    PassivationStrategy(boolean limited) {
        this.limited = limited;
    }

    /**
     * Whether the strategy works against a share of the node's {@code active-entity-limit} when the type has no limit
     * of its own.
     *
     * @return true for the limit strategies
     */
    public boolean limited() {
        return limited;
    }
}
