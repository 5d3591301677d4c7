package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Coordinator to member, answering {@link LeasePong}: serve your shards for this long from when you sent the request.
 * Never longer than the coordinator itself may run (its own quorum lease).
 *
 * @param request the request answered
 * @param validForNanos how long the lease lasts from the sending of the request
 */
public record LeaseGrant(long request, long validForNanos) implements LeaseMessage {

    /** The wire tag. */
    public static final int TAG = 25;

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
        handler.onGrant(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.int64(request).int64(validForNanos);
    }

    static LeaseGrant readFrom(WireReader in) {
        return new LeaseGrant(in.int64(), in.int64());
    }
}
