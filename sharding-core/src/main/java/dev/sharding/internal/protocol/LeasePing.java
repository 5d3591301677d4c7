package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Coordinator to every member of its view, every quarter of the lease duration: do you follow me? A member answers
 * {@link LeasePong} only if the sender is the coordinator of its own current view. The pongs tell the coordinator
 * that a winning set of members follows it, which is what lets it grant leases.
 *
 * @param round the round, increasing
 */
public record LeasePing(long round) implements LeaseMessage {

    /** The wire tag. */
    public static final int TAG = 23;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public Sender sender() {
        return Sender.COORDINATOR;
    }

    @Override
    public void dispatchTo(Handler handler, Member from) {
        handler.onPing(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.int64(round);
    }

    static LeasePing readFrom(WireReader in) {
        return new LeasePing(in.int64());
    }
}
