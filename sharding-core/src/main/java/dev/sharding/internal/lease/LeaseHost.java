package dev.sharding.internal.lease;

import dev.sharding.Member;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.spi.ShardingStore;
import java.util.List;

/**
 * What the lease keeper and its parts ({@link MemberLease}, {@link CoordinatorLeases}, {@link StoreLease}) use of
 * their node: who it is, sending, the store and the control thread. What a lease decides for the node goes to its
 * {@link LeaseListener}s instead.
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
}
