package dev.sharding.internal.protocol;

import dev.sharding.internal.codec.WireWriter;

/**
 * Member to a leaving node, answering {@link RegionStopped}: everything you sent me before has arrived.
 */
public record RegionStoppedAck() implements ProtocolMessage {

    /** The wire tag. */
    public static final int TAG = 22;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public void writeTo(WireWriter out) {
    }
}
