package dev.sharding.internal.protocol;

import dev.sharding.internal.codec.WireWriter;

/**
 * A newly active coordinator to every node: which shards do your regions host? The reply is {@link ShardStates}.
 */
public record GetShardStates() implements ProtocolMessage {

    /** The wire tag. */
    public static final int TAG = 3;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public void writeTo(WireWriter out) {
    }
}
