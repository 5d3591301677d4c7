package dev.sharding.internal.protocol;

import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One recent rebalance, as the active coordinator reports it in {@link RegionStats}: a round of the allocation
 * strategy that moved shards and the rounds that followed it at once. Its age rather than its time crosses the
 * network, so that the node that asked dates it on its own clock.
 *
 * @param ageMillis how long ago its first round started, in milliseconds
 * @param rounds how many rounds it took: decisions of the allocation strategy that moved shards
 * @param moved how many shards its rounds started moving
 * @param from per node name, how many of the moved shards left it
 * @param to per node name, how many of the moved shards were placed on it so far (the rest are still moving)
 */
public record RebalanceReport(
        long ageMillis, int rounds, int moved, Map<String, Integer> from, Map<String, Integer> to) {

    /** The most rebalances one report carries. */
    static final int MAX_ROUNDS = 100;

    /** The most nodes one side of a round names. */
    private static final int MAX_NODES = 10_000;

    /** Sorts and copies the maps. */
    public RebalanceReport {
        from = java.util.Collections.unmodifiableMap(new TreeMap<>(from));
        to = java.util.Collections.unmodifiableMap(new TreeMap<>(to));
    }

    void writeTo(WireWriter out) {
        out.int64(ageMillis).varInt(rounds).varInt(moved);
        writeCounts(out, from);
        writeCounts(out, to);
    }

    private static void writeCounts(WireWriter out, Map<String, Integer> counts) {
        out.varInt(counts.size());
        counts.forEach((node, count) -> out.string(node).varInt(count));
    }

    static RebalanceReport readFrom(WireReader in) {
        long age = in.int64();
        int rounds = in.varInt();
        int moved = in.varInt();
        return new RebalanceReport(age, rounds, moved, readCounts(in), readCounts(in));
    }

    private static Map<String, Integer> readCounts(WireReader in) {
        int n = in.varInt();
        if (n > MAX_NODES || n > in.remaining()) {
            throw new MalformedFrameException("Bad node count " + n);
        }
        Map<String, Integer> counts = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            counts.put(in.string(), in.varInt());
        }
        return counts;
    }

    static void writeList(WireWriter out, List<RebalanceReport> rounds) {
        out.varInt(rounds.size());
        rounds.forEach(r -> r.writeTo(out));
    }

    static List<RebalanceReport> readList(WireReader in) {
        int n = in.varInt();
        if (n > MAX_ROUNDS || n > in.remaining()) {
            throw new MalformedFrameException("Bad rebalance count " + n);
        }
        List<RebalanceReport> rounds = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            rounds.add(readFrom(in));
        }
        return List.copyOf(rounds);
    }
}
