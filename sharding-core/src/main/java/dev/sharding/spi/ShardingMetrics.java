package dev.sharding.spi;

/**
 * Receives what a node counts and times, for a metrics library: the Spring Boot starter binds it to Micrometer when
 * Micrometer is on the class path. The node calls it on its hot paths (callers' threads, entity threads, transport
 * threads, the store's threads), so implementations must be thread-safe, must not block, and should not allocate per
 * call: resolve meters once, in {@link #entityType}, and only record afterwards.
 *
 * <p>Gauges (live entities, hosted shards, buffered messages, members, whether this node runs the coordinator) are
 * not pushed here: read them from the {@link dev.sharding.ShardingNode} when they are collected.
 *
 * <p>Every method has a default that records nothing, so an implementation overrides what it needs. Set it with
 * {@code ShardingNode.Builder.metrics}; the JDBC store takes the same object for its batches.
 */
public interface ShardingMetrics {

    /** Records nothing. */
    ShardingMetrics NONE = new ShardingMetrics() {};

    /**
     * The recorder of one entity type on this node, asked for once when the node builds the type's region.
     *
     * @param typeName the entity type
     * @return its recorder, {@link EntityTypeMetrics#NONE} for none
     */
    default EntityTypeMetrics entityType(String typeName) {
        return EntityTypeMetrics.NONE;
    }

    /** The coordinator on this node ran a rebalance round that started moving at least one shard. */
    default void rebalanceRound() {}

    /**
     * The store committed (or failed) one transaction of several writes.
     *
     * @param writes the writes in it
     */
    default void storeBatch(int writes) {}

    /**
     * One of the node's own threads was held by one piece of work longer than the {@code blocked-thread-threshold}
     * (it is logged at WARN with its stack); counted once per piece of work.
     *
     * @param thread what the thread does: {@code control} (the node's control thread), {@code transport} (a thread of
     *     the transport delivering a frame), {@code store} (a thread of the store completing a state write)
     */
    default void blockedThread(String thread) {}

    /**
     * The recorder of one slice of a projection running on this node, asked for once when its worker starts here.
     *
     * @param projection the projection's name
     * @param slice the slice
     * @return its recorder
     */
    default ProjectionMetrics projection(String projection, int slice) {
        return ProjectionMetrics.NONE;
    }

    /** Receives what one slice of a projection did; called on the slice's own thread. */
    interface ProjectionMetrics {

        /** Records nothing. */
        ProjectionMetrics NONE = new ProjectionMetrics() {};

        /**
         * The slice handled a page of events (and saved its offset past them).
         *
         * @param events how many
         * @param lagMillis how long before the last of them had been written, on the store's clock as the node sees
         *     it: how far behind the projection is
         */
        default void handled(int events, long lagMillis) {}

        /** The slice has read every event there is (it is not behind). */
        default void caughtUp() {}

        /** The slice's worker stopped on this node (it moved, or the node stops). */
        default void stopped() {}
    }
}
