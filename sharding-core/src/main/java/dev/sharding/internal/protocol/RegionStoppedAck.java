package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireWriter;

/**
 * Member to a leaving node, answering {@link RegionStopped}: everything you sent me before has arrived.
 */
public record RegionStoppedAck() implements NodeMessage {

    /** The wire tag. */
    public static final int TAG = 22;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public Sender sender() {
        return Sender.MEMBER;
    }

    @Override
    public boolean answeredWhileStopping() {
        return true;
    }

    @Override
    public void dispatchTo(Handler handler, Member from) {
        handler.onRegionStoppedAck(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {}
}
