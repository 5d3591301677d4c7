package dev.sharding.autoconfigure.locality;

import dev.sharding.spi.ShardIdFunction;

/** All of a customer's orders in one shard: only the part of the id before the separator is hashed. */
public class CustomerShards implements ShardIdFunction {

    private final LocalityConfiguration.Separator separator;

    /**
     * Creates the function.
     *
     * @param separator what separates customer and order
     */
    public CustomerShards(LocalityConfiguration.Separator separator) {
        this.separator = separator;
    }

    @Override
    public int shardId(String entityId, int numberOfShards) {
        int at = entityId.indexOf(this.separator.value());
        return Math.floorMod((at < 0 ? entityId : entityId.substring(0, at)).hashCode(), numberOfShards);
    }
}
