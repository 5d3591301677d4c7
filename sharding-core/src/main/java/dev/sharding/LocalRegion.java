package dev.sharding;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One entity type's region on this node, as an operator sees it ({@link ShardingNode#localRegion}): what it hosts and
 * holds now, and how its entities are passivated, which may change while it runs. Each figure is read when asked and
 * is cheap enough for a gauge. The region that sends messages is {@link ShardingNode#region}.
 */
public interface LocalRegion {

    /** {@return the entity type's name} */
    String typeName();

    /** {@return whether this node's region only routes messages and hosts no shard (proxy-only, or a role it lacks)} */
    boolean proxyOnly();

    /** {@return the number of shards of the type} */
    int numberOfShards();

    /** {@return the shards of the type hosted on this node now} */
    int hostedShards();

    /** {@return the live entities of the type on this node now} */
    int activeEntities();

    /** {@return the live entity ids of the shards hosted here, per shard} */
    Map<Integer, List<String>> entityIds();

    /** {@return the messages waiting on this node for their shard's home (not known yet, or moving)} */
    int bufferedMessages();

    /** {@return the entities passivated on this node since it started} */
    long passivations();

    /** {@return how the type's entities are passivated on this node now} */
    PassivationStrategy passivationStrategy();

    /** {@return the type's limit of live entities on this node now, zero for none} */
    int activeEntityLimit();

    /**
     * Changes how the type's entities are passivated on this node, while it runs (as Pekko's
     * {@code SetActiveEntityLimit}); a restart goes back to the settings.
     *
     * @param strategy the new strategy, or {@code null} to keep it
     * @param activeEntityLimit the type's limit of live entities on this node (zero for none), or {@code null} to keep
     *     it
     * @throws IllegalArgumentException for a negative limit
     */
    void changePassivation(@Nullable PassivationStrategy strategy, @Nullable Integer activeEntityLimit);
}
