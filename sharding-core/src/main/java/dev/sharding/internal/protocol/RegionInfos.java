package dev.sharding.internal.protocol;

import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.ArrayList;
import java.util.List;

final class RegionInfos {

    private static final int MAX_TYPES = 10_000;

    private RegionInfos() {}

    static void write(WireWriter out, List<RegionInfo> regions) {
        out.varInt(regions.size());
        for (RegionInfo r : regions) {
            r.writeTo(out);
        }
    }

    static List<RegionInfo> read(WireReader in) {
        int n = in.varInt();
        if (n > MAX_TYPES) {
            throw new MalformedFrameException("Too many regions: " + n);
        }
        List<RegionInfo> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(RegionInfo.readFrom(in));
        }
        return List.copyOf(list);
    }
}
