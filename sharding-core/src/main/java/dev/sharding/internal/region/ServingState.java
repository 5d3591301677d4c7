package dev.sharding.internal.region;

import dev.sharding.ClusterPartitionedException;
import dev.sharding.internal.entity.EntityCell;
import org.jspecify.annotations.Nullable;

/**
 * Whether the node a region runs on takes messages and may run its entities, and the entities that wait until it may:
 * a role of {@link RegionHost}.
 */
public interface ServingState {

    /** Throws if the node does not take messages now: stopped, or cut off on the losing side of a partition. */
    void checkRunning();

    boolean isRunning();

    /** Why this node may not serve now (partitioned), or null. */
    @Nullable
    String partitionedReason();

    ClusterPartitionedException partitionedException(String reason);

    /** Whether this node may deliver to its entities now (its lease lasts). Any thread; on every message. */
    boolean serving();

    /** An entity waits for the node to serve again. Entity threads. */
    void park(EntityCell cell);

    /** Runs every waiting entity again. Any thread. */
    void unparkAll();
}
