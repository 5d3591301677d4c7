package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireWriter;

/**
 * Node to coordinator: I am leaving; hand off every shard I host and give me no new ones. Repeated until the node
 * hosts nothing.
 */
public record GracefulShutdownRequest() implements CoordinatorMessage {

    /** The wire tag. */
    public static final int TAG = 18;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public Sender sender() {
        return Sender.MEMBER;
    }

    @Override
    public void dispatchTo(Handler handler, Member from) {
        handler.onGracefulShutdownRequest(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {}
}
