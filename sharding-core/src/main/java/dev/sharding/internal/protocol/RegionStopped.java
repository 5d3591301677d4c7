package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireWriter;

/**
 * A leaving node to every member, sent with delivery confirmation as its last message: everything I sent you before
 * has arrived, and my regions host nothing any more.
 */
public record RegionStopped() implements NodeMessage {

    /** The wire tag. */
    public static final int TAG = 19;

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
        handler.onRegionStopped(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {}
}
