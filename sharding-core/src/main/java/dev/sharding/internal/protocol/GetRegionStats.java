package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Any node to every node: report your regions' shards and entity counts. The reply is {@link RegionStats}.
 *
 * @param requestId matches the replies to the request
 */
public record GetRegionStats(long requestId) implements NodeMessage {

    /** The wire tag. */
    public static final int TAG = 12;

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
        handler.onGetRegionStats(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.int64(requestId);
    }

    static GetRegionStats readFrom(WireReader in) {
        return new GetRegionStats(in.int64());
    }
}
