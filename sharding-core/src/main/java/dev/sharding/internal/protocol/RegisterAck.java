package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireWriter;

/**
 * Coordinator to node: your {@link Register} was taken; I am the coordinator.
 */
public record RegisterAck() implements NodeMessage {

    /** The wire tag. */
    public static final int TAG = 2;

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
        return false;
    }

    @Override
    public void dispatchTo(Handler handler, Member from) {
        handler.onRegisterAck(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {}
}
