package dev.sharding.internal.node;

import dev.sharding.NodeTraffic;
import dev.sharding.internal.transport.Transport;

/** The node's counts of traffic held back or dropped, read from the membership and the transport. Any thread. */
record NodeCounters(Membership membership, Transport transport) implements NodeTraffic {

    @Override
    public long droppedControlMessages() {
        return membership.droppedControl();
    }

    @Override
    public long maxQueuedBytes() {
        return transport.maxQueuedBytes();
    }

    @Override
    public long refusedFrames() {
        return transport.refusedFrames();
    }

    @Override
    public long membersReportedBehind() {
        return transport.membersReportedBehind();
    }
}
