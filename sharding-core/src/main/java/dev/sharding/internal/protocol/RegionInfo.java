package dev.sharding.internal.protocol;

import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.Arrays;

/**
 * What a node's region of one type is: whether it hosts shards, how many shards the type has, and the shards it
 * hosts now.
 *
 * @param typeName the entity type
 * @param proxyOnly whether the region hosts nothing
 * @param rememberEntities whether the type's live entities are remembered
 * @param numberOfShards the type's number of shards on that node
 * @param hostedShards the shards the region hosts, ascending
 * @param hostedEpochs the epoch of each hosted shard's allocation, in the same order
 */
public record RegionInfo(
        String typeName,
        boolean proxyOnly,
        boolean rememberEntities,
        int numberOfShards,
        int[] hostedShards,
        long[] hostedEpochs) {

    /**
     * Checks that every hosted shard has its epoch.
     */
    public RegionInfo {
        if (hostedShards.length != hostedEpochs.length) {
            throw new IllegalArgumentException(
                    hostedShards.length + " hosted shards but " + hostedEpochs.length + " epochs");
        }
    }

    /**
     * A region's report without epochs (every epoch 0), for tests and tools.
     *
     * @param typeName the entity type
     * @param proxyOnly whether the region hosts nothing
     * @param rememberEntities whether the type's live entities are remembered
     * @param numberOfShards the type's number of shards on that node
     * @param hostedShards the shards the region hosts, ascending
     */
    public RegionInfo(
            String typeName, boolean proxyOnly, boolean rememberEntities, int numberOfShards, int[] hostedShards) {
        this(typeName, proxyOnly, rememberEntities, numberOfShards, hostedShards, new long[hostedShards.length]);
    }

    void writeTo(WireWriter out) {
        out.string(typeName)
                .bool(proxyOnly)
                .bool(rememberEntities)
                .varInt(numberOfShards)
                .varInt(hostedShards.length);
        for (int i = 0; i < hostedShards.length; i++) {
            out.varInt(hostedShards[i]).int64(hostedEpochs[i]);
        }
    }

    static RegionInfo readFrom(WireReader in) {
        String type = in.string();
        boolean proxy = in.bool();
        boolean remember = in.bool();
        int shards = in.varInt();
        int n = in.varInt();
        if (n > shards || n > in.remaining()) {
            throw new dev.sharding.internal.codec.MalformedFrameException("Bad hosted shard count " + n);
        }
        int[] hosted = new int[n];
        long[] epochs = new long[n];
        for (int i = 0; i < n; i++) {
            hosted[i] = in.varInt();
            epochs[i] = in.int64();
        }
        return new RegionInfo(type, proxy, remember, shards, hosted, epochs);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RegionInfo r
                && r.typeName.equals(typeName)
                && r.proxyOnly == proxyOnly
                && r.rememberEntities == rememberEntities
                && r.numberOfShards == numberOfShards
                && Arrays.equals(r.hostedShards, hostedShards)
                && Arrays.equals(r.hostedEpochs, hostedEpochs);
    }

    @Override
    public int hashCode() {
        return typeName.hashCode() * 31 + Arrays.hashCode(hostedShards);
    }

    @Override
    public String toString() {
        return "RegionInfo[" + typeName + (proxyOnly ? ", proxy" : "") + ", shards=" + numberOfShards + ", hosted="
                + Arrays.toString(hostedShards) + ", epochs=" + Arrays.toString(hostedEpochs) + "]";
    }
}
