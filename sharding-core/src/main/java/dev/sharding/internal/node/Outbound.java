package dev.sharding.internal.node;

import dev.sharding.Member;
import dev.sharding.internal.protocol.ProtocolMessage;

/** Where the parts of a node send protocol messages: to another member, or, to this node, handled locally. */
@FunctionalInterface
interface Outbound {

    /**
     * Sends a message.
     *
     * @param to the member
     * @param msg the message
     * @param outOfBand whether it may overtake earlier messages to that member (queries and replies)
     */
    void send(Member to, ProtocolMessage msg, boolean outOfBand);
}
