package dev.sharding.autoconfigure;

import dev.sharding.ShardingSettings;

/**
 * Limits of one rebalance round, bound from {@code sharding.rebalance.*}.
 */
public class RebalanceProperties {

    /**
     * Most shards of one entity type that a rebalance round moves.
     */
    private int absoluteLimit = ShardingSettings.DEFAULT_REBALANCE_ABSOLUTE_LIMIT;

    /**
     * Most shards of one entity type that a rebalance round moves, as a fraction of all its shards. A round moves at
     * most max(1, min(relative-limit x shards, absolute-limit)).
     */
    private double relativeLimit = ShardingSettings.DEFAULT_REBALANCE_RELATIVE_LIMIT;

    public int getAbsoluteLimit() {
        return this.absoluteLimit;
    }

    public void setAbsoluteLimit(int absoluteLimit) {
        this.absoluteLimit = absoluteLimit;
    }

    public double getRelativeLimit() {
        return this.relativeLimit;
    }

    public void setRelativeLimit(double relativeLimit) {
        this.relativeLimit = relativeLimit;
    }
}
