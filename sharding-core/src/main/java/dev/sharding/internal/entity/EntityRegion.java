package dev.sharding.internal.entity;

import dev.sharding.internal.ask.ReplySink;

/**
 * What the entities of one type need of their region on this node, beyond the parts they share
 * ({@link EntityShard#services}): whether they may run, where refused messages and their starts and stops are counted,
 * the clocks, and what to do when the store says their shard moved. The region implements it; entities never see the
 * region itself.
 */
public interface EntityRegion {

    /** The node's name, for messages. */
    String nodeName();

    /** Whether this node may deliver to its entities now (its lease lasts). Any thread; on every message. */
    boolean serving();

    /** Why the node does not serve now, for a message refused because of it. */
    String notServingReason();

    /** An entity waits for the node to serve again. Entity threads. */
    void park(EntityCell cell);

    /**
     * A message did not fit its entity's full mailbox: an ask fails with {@link dev.sharding.BufferFullException}, a
     * tell is dropped and counted.
     */
    void mailboxFull(EntityCell cell, ReplySink sink);

    /** A coarse clock, updated by the node's periodic tick, for idle times. */
    long clockMillis();

    /** The time on the store's clock, which every node reads alike (milliseconds since the epoch). */
    long storeMillis();

    /** An entity started. Entity threads. */
    void entityStarted(EntityCell cell);

    /** An entity's instance was destroyed. Entity threads. */
    void entityStopped(EntityCell cell);

    /** An entity was passivated. Entity threads. */
    void entityPassivated(EntityCell cell);

    /** The store refused a write of the shard's entity as stale: this incarnation of the shard stops. Any thread. */
    void shardFenced(int shardId, long epoch);
}
