package dev.sharding.internal.protocol;

import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.List;

/**
 * Node to coordinator: here are my regions and the shards they host; repeated until a {@link RegisterAck} comes back
 * from the current coordinator.
 *
 * @param regions one entry per entity type the node runs
 */
public record Register(List<RegionInfo> regions) implements ProtocolMessage {

    /** The wire tag. */
    public static final int TAG = 1;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public void writeTo(WireWriter out) {
        RegionInfos.write(out, regions);
    }

    static Register readFrom(WireReader in) {
        return new Register(RegionInfos.read(in));
    }
}
