package dev.sharding.autoconfigure;

import dev.sharding.RebalanceSettings;
import java.time.Duration;
import org.springframework.boot.context.properties.PropertyMapper;

/**
 * When rebalance rounds start and how much one moves, bound from {@code sharding.rebalance.*}.
 */
public class RebalanceProperties {

    /**
     * Most shards of one entity type that a rebalance round moves.
     */
    private int absoluteLimit = RebalanceSettings.DEFAULT_ABSOLUTE_LIMIT;

    /**
     * Most shards of one entity type that a rebalance round moves, as a fraction of all its shards. A round moves at
     * most max(1, min(relative-limit x shards, absolute-limit)).
     */
    private double relativeLimit = RebalanceSettings.DEFAULT_RELATIVE_LIMIT;

    /**
     * How long no node may have joined or left before the coordinator moves shards. A change of membership is followed
     * by a round as soon as the membership has been stable this long; nodes that join (or leave) within it move
     * shards once, after the last of them.
     */
    private Duration stableAfter = RebalanceSettings.DEFAULT_STABLE_AFTER;

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

    /**
     * These properties as core settings.
     *
     * @param interval the rebalance interval, a property of the node ({@code sharding.rebalance-interval})
     * @return the settings
     */
    RebalanceSettings toSettings(Duration interval) {
        PropertyMapper map = PropertyMapper.get();
        RebalanceSettings settings = map.from(interval).to(RebalanceSettings.DEFAULT, RebalanceSettings::withInterval);
        settings = map.from(this.stableAfter).to(settings, RebalanceSettings::withStableAfter);
        settings = map.from(this.absoluteLimit).to(settings, RebalanceSettings::withAbsoluteLimit);
        return map.from(this.relativeLimit).to(settings, RebalanceSettings::withRelativeLimit);
    }
}
