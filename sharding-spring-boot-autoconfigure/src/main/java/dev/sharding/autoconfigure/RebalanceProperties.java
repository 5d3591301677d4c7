package dev.sharding.autoconfigure;

import dev.sharding.ShardingSettings;
import java.time.Duration;

/**
 * When rebalance rounds start and how much one moves, bound from {@code sharding.rebalance.*}.
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

    /**
     * How long no node may have joined or left before the coordinator moves shards. A change of membership is followed
     * by a round as soon as the membership has been stable this long; nodes that join (or leave) within it move
     * shards once, after the last of them.
     */
    private Duration stableAfter = ShardingSettings.DEFAULT_REBALANCE_STABLE_AFTER;

    public Duration getStableAfter() {
        return this.stableAfter;
    }

    public void setStableAfter(Duration stableAfter) {
        this.stableAfter = stableAfter;
    }

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
