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
 */
public record RegionInfo(String typeName, boolean proxyOnly, boolean rememberEntities, int numberOfShards,
        int[] hostedShards) {

    void writeTo(WireWriter out) {
        out.string(typeName).bool(proxyOnly).bool(rememberEntities).varInt(numberOfShards)
                .varInt(hostedShards.length);
        for (int s : hostedShards) {
            out.varInt(s);
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
        for (int i = 0; i < n; i++) {
            hosted[i] = in.varInt();
        }
        return new RegionInfo(type, proxy, remember, shards, hosted);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RegionInfo r && r.typeName.equals(typeName) && r.proxyOnly == proxyOnly
                && r.rememberEntities == rememberEntities
                && r.numberOfShards == numberOfShards && Arrays.equals(r.hostedShards, hostedShards);
    }

    @Override
    public int hashCode() {
        return typeName.hashCode() * 31 + Arrays.hashCode(hostedShards);
    }

    @Override
    public String toString() {
        return "RegionInfo[" + typeName + (proxyOnly ? ", proxy" : "") + ", shards=" + numberOfShards + ", hosted="
                + Arrays.toString(hostedShards) + "]";
    }
}
