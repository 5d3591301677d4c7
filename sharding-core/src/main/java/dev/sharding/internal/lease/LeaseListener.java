package dev.sharding.internal.lease;

/**
 * What a lease decides for its node, told to the parts that act on it: the serving gate (whether entities may run) and
 * the coordinator (whether it may allocate). Registered with {@link LeaseKeeper#listen} once those parts exist, before
 * the node starts; the lease keeper itself never names them. Every method runs on the control thread.
 */
public interface LeaseListener {

    /** The coordinator may allocate again (a member got its first lease, or the store lease came back). */
    default void coordinatorMayRun() {}

    /** The node lost its side or its lease: its entities stop taking messages. */
    default void stopServing(String reason) {}

    /**
     * A lease is about to come back after a lapse: from now until {@link #resumeServing()} has checked the shards kept
     * through the lapse, nothing is delivered, even though the lease says the node serves. Called before the lease
     * is extended, so that no entity thread can see the new lease before the check begins.
     */
    default void holdDelivery() {}

    /** The node holds a lease again. */
    default void resumeServing() {}

    /**
     * This node's coordinator found another cluster (another cluster name) holding the store's coordinator lease:
     * the cluster may not use this store, for good.
     *
     * @param reason why, naming both clusters and what to do
     */
    default void storeUsedByAnotherCluster(String reason) {}
}
