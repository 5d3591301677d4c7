package dev.sharding.internal.protocol;

import dev.sharding.internal.codec.WireWriter;

/**
 * Coordinator to node: your {@link Register} was taken; I am the coordinator.
 */
public record RegisterAck() implements ProtocolMessage {

    /** The wire tag. */
    public static final int TAG = 2;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public void writeTo(WireWriter out) {
    }
}
