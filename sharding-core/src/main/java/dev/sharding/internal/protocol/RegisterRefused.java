package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Coordinator to node, answering {@link Register}: this node cannot join the sharding cluster, for a reason it cannot
 * fix by retrying (it uses another store than the cluster, or another number of shards for a type).
 *
 * @param reason what differs, naming both values
 */
public record RegisterRefused(String reason) implements NodeMessage {

    /** The wire tag. */
    public static final int TAG = 28;

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
        handler.onRegisterRefused(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.string(reason);
    }

    static RegisterRefused readFrom(WireReader in) {
        return new RegisterRefused(in.string());
    }
}
