package dev.sharding.internal.protocol;

import dev.sharding.Member;

/** The recipients of control messages on a node, one per message family. */
public interface Recipients {

    /**
     * A message for the coordinator.
     *
     * @param from the sender
     * @param m the message
     */
    void coordinator(Member from, CoordinatorMessage m);

    /**
     * A message for the region of {@link RegionMessage#typeName()}.
     *
     * @param from the sender
     * @param m the message
     */
    void region(Member from, RegionMessage m);

    /**
     * A message for the lease keeper.
     *
     * @param from the sender
     * @param m the message
     */
    void lease(Member from, LeaseMessage m);

    /**
     * A message for the node as a whole.
     *
     * @param from the sender
     * @param m the message
     */
    void node(Member from, NodeMessage m);
}
