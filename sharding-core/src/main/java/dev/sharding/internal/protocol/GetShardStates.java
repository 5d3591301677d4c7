package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireWriter;

/**
 * A newly active coordinator to every node: which shards do your regions host? The reply is {@link ShardStates}.
 */
public record GetShardStates() implements NodeMessage {

    /** The wire tag. */
    public static final int TAG = 3;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public Sender sender() {
        return Sender.COORDINATOR;
    }

    @Override
    public boolean answeredWhileStopping() {
        return true;
    }

    @Override
    public void dispatchTo(Handler handler, Member from) {
        handler.onGetShardStates(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {}
}
