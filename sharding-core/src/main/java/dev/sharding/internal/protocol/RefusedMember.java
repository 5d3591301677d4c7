package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A member of the view that the active coordinator refused for good ({@link RegisterRefused}: another store, another
 * number of shards), as the coordinator reports it in {@link RegionStats}, so that every node can tell that member
 * from one that serves.
 *
 * @param member the member
 * @param reason why it was refused, as it was told
 */
public record RefusedMember(Member member, String reason) {

    /** The most refused members one report carries. */
    static final int MAX_MEMBERS = 10_000;

    static void writeList(WireWriter out, List<RefusedMember> refused) {
        out.varInt(refused.size());
        refused.forEach(r -> out.member(r.member).string(r.reason));
    }

    static List<RefusedMember> readList(WireReader in) {
        int n = in.varInt();
        if (n > MAX_MEMBERS || n > in.remaining()) {
            throw new MalformedFrameException("Bad refused member count " + n);
        }
        List<RefusedMember> refused = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            refused.add(new RefusedMember(in.member(), in.string()));
        }
        return List.copyOf(refused);
    }
}
