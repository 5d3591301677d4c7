package dev.sharding.internal.protocol;

import dev.sharding.internal.codec.WireWriter;

/**
 * Node to coordinator: I am leaving; hand off every shard I host and give me no new ones. Repeated until the node
 * hosts nothing.
 */
public record GracefulShutdownRequest() implements ProtocolMessage {

    /** The wire tag. */
    public static final int TAG = 18;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public void writeTo(WireWriter out) {
    }
}
