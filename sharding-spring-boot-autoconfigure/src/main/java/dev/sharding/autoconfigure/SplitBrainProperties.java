package dev.sharding.autoconfigure;

import dev.sharding.SplitBrainSettings;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How a partitioned cluster decides which side keeps running, bound from {@code sharding.split-brain.*}.
 */
public class SplitBrainProperties {

    /**
     * Which side of a network partition keeps its shards: keep-majority (more than half of the last stable view's
     * members, or half with its oldest member), static-quorum (at least quorum-size members), keep-oldest (the side
     * of the oldest member), store-lease (the side whose coordinator holds the lease in the store; works for two
     * nodes), or off (both sides run; unsafe).
     */
    private SplitBrainSettings.Strategy strategy = SplitBrainSettings.Strategy.KEEP_MAJORITY;

    /**
     * How long a view must stay unchanged to be the reference of later decisions. Derived when not set: the failure
     * detector's time to notice a hung or cut-off member plus one second (4.5 s with the default stack).
     */
    private @Nullable Duration stableAfter;

    /**
     * With strategy static-quorum, the fewest members a side needs to keep running (members that joined it after the
     * split do not count). Never run more than twice this minus one nodes: with more, a split stops every side, and
     * the coordinator logs a warning.
     */
    private int quorumSize;

    /**
     * With strategy keep-oldest, whether the oldest member, cut off alone from all the others, stops instead of them.
     */
    private boolean downIfAlone = true;

    /**
     * How long a node may serve its shards after its last lease renewal by the coordinator. The winning side takes
     * over a lost member's shards only after that, so it bounds the failover time after a crash; a node frozen or cut
     * off longer stops serving.
     */
    private Duration leaseDuration = Duration.ofSeconds(2);

    public SplitBrainSettings.Strategy getStrategy() {
        return this.strategy;
    }

    public void setStrategy(SplitBrainSettings.Strategy strategy) {
        this.strategy = strategy;
    }

    public @Nullable Duration getStableAfter() {
        return this.stableAfter;
    }

    public void setStableAfter(@Nullable Duration stableAfter) {
        this.stableAfter = stableAfter;
    }

    public int getQuorumSize() {
        return this.quorumSize;
    }

    public void setQuorumSize(int quorumSize) {
        this.quorumSize = quorumSize;
    }

    public boolean isDownIfAlone() {
        return this.downIfAlone;
    }

    public void setDownIfAlone(boolean downIfAlone) {
        this.downIfAlone = downIfAlone;
    }

    public Duration getLeaseDuration() {
        return this.leaseDuration;
    }

    public void setLeaseDuration(Duration leaseDuration) {
        this.leaseDuration = leaseDuration;
    }

    /**
     * The core settings.
     *
     * @return the settings
     */
    SplitBrainSettings toSettings() {
        return new SplitBrainSettings(
                this.strategy, this.stableAfter, this.quorumSize, this.downIfAlone, this.leaseDuration);
    }
}
