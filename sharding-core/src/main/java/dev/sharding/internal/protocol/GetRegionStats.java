package dev.sharding.internal.protocol;

import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Any node to every node: report your regions' shards and entity counts. The reply is {@link RegionStats}.
 *
 * @param requestId matches the replies to the request
 */
public record GetRegionStats(long requestId) implements ProtocolMessage {

    /** The wire tag. */
    public static final int TAG = 12;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public void writeTo(WireWriter out) {
        out.int64(requestId);
    }

    static GetRegionStats readFrom(WireReader in) {
        return new GetRegionStats(in.int64());
    }
}
