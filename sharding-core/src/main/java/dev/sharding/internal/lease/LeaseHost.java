package dev.sharding.internal.lease;

import dev.sharding.Member;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.spi.ShardingStore;
import java.util.List;

/**
 * What the lease keeper and its parts ({@link MemberLease}, {@link CoordinatorLeases}, {@link StoreLease}) use of
 * their node: who it is, sending, the store's coordinator lease, and the two things a lease decides for the node:
 * whether it serves, and whether its coordinator may allocate. {@code NodeLinks} implements it.
 */
public interface LeaseHost {

    /** This member; throws before the node started. */
    Member self();

    String nodeName();

    String clusterName();

    /** The members of the current view. */
    List<Member> members();

    ShardingStore store();

    void send(Member to, ProtocolMessage msg, boolean outOfBand);

    /** Runs a task on the control thread later; false when the node stopped and did not take it. Any thread. */
    boolean runOnControlLater(Runnable task);

    /** The coordinator may allocate again (a member got its first lease, or the store lease came back). */
    void coordinatorMayRun();

    /** The node lost its side or its lease: its entities stop taking messages. Control thread. */
    void stopServing(String reason);

    /**
     * A lease is about to come back after a lapse: from now until {@link #resumeServing()} has checked the shards kept
     * through the lapse, nothing is delivered, even though the lease says the node serves. Called before the lease
     * is extended, so that no entity thread can see the new lease before the check begins. Control thread.
     */
    void holdDelivery();

    /** The node holds a lease again. Control thread. */
    void resumeServing();
}
