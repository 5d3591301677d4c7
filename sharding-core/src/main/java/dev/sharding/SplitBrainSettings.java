package dev.sharding;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How a cluster that the network splits decides which side keeps its shards, and how long a node may serve its
 * shards without hearing from its coordinator.
 *
 * <p>When the network splits, JGroups forms one view per side, each with its own coordinator. The strategy decides,
 * on every node and against the last stable view, whether the node's side keeps running. The losing side stops its
 * entities at once and refuses messages with {@link ClusterPartitionedException}. Independently of views, a node
 * serves its shards only while it holds a lease granted by a coordinator that the strategy lets run; the winning side
 * takes over a lost member's shards only once every lease that member could hold has expired, so two live copies of
 * an entity never overlap in time.
 *
 * @param strategy which side keeps running
 * @param stableAfter how long a view must stay unchanged to be the reference of later decisions; {@code null} to
 *     derive it from the failure detector's timeouts (the time both sides of a split need to see it, plus a second)
 * @param quorumSize for {@link Strategy#STATIC_QUORUM}: the fewest members a side needs; 0 otherwise
 * @param downIfAlone for {@link Strategy#KEEP_OLDEST}: whether the oldest member alone, cut off from all the others,
 *     stops instead of them
 * @param leaseDuration how long a node may serve its shards after its last lease renewal; the winning side waits this
 *     long before it takes over a lost member's shards, so it bounds the failover time after a crash
 */
public record SplitBrainSettings(
        Strategy strategy,
        @Nullable Duration stableAfter,
        int quorumSize,
        boolean downIfAlone,
        Duration leaseDuration) {

    /** Default lease duration. */
    public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(2);

    /** The defaults: keep-majority, stable-after derived, lease of 2 s. */
    public static final SplitBrainSettings DEFAULT =
            new SplitBrainSettings(Strategy.KEEP_MAJORITY, null, 0, true, DEFAULT_LEASE_DURATION);

    /**
     * Checks the arguments are not null.
     */
    public SplitBrainSettings {
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(leaseDuration, "leaseDuration");
    }

    /**
     * Copy with another strategy.
     *
     * @param value the strategy
     * @return the copy
     */
    public SplitBrainSettings withStrategy(Strategy value) {
        return new SplitBrainSettings(value, stableAfter, quorumSize, downIfAlone, leaseDuration);
    }

    /**
     * Copy with another stable-after.
     *
     * @param value the duration, or {@code null} to derive it
     * @return the copy
     */
    public SplitBrainSettings withStableAfter(@Nullable Duration value) {
        return new SplitBrainSettings(strategy, value, quorumSize, downIfAlone, leaseDuration);
    }

    /**
     * Copy with another quorum size.
     *
     * @param value the fewest members a side needs (static-quorum)
     * @return the copy
     */
    public SplitBrainSettings withQuorumSize(int value) {
        return new SplitBrainSettings(strategy, stableAfter, value, downIfAlone, leaseDuration);
    }

    /**
     * Copy with another down-if-alone.
     *
     * @param value whether the oldest alone stops (keep-oldest)
     * @return the copy
     */
    public SplitBrainSettings withDownIfAlone(boolean value) {
        return new SplitBrainSettings(strategy, stableAfter, quorumSize, value, leaseDuration);
    }

    /**
     * Copy with another lease duration.
     *
     * @param value the duration
     * @return the copy
     */
    public SplitBrainSettings withLeaseDuration(Duration value) {
        return new SplitBrainSettings(strategy, stableAfter, quorumSize, downIfAlone, value);
    }

    /**
     * Checks the settings.
     *
     * @throws IllegalArgumentException naming the first invalid setting
     */
    void validate() {
        if (strategy == Strategy.STATIC_QUORUM && quorumSize < 1) {
            throw new InvalidSettingException(
                    "split-brain.quorum-size", quorumSize, "must be positive with strategy static-quorum");
        }
        if (strategy != Strategy.STATIC_QUORUM && quorumSize != 0) {
            throw new InvalidSettingException(
                    "split-brain.quorum-size",
                    quorumSize,
                    "only strategy static-quorum uses it (strategy is " + strategy + ")");
        }
        if (stableAfter != null && (stableAfter.isNegative() || stableAfter.isZero())) {
            throw new InvalidSettingException("split-brain.stable-after", stableAfter, "must be positive");
        }
        if (leaseDuration.compareTo(Duration.ofMillis(200)) < 0) {
            throw new InvalidSettingException("split-brain.lease-duration", leaseDuration, "must be at least 200ms");
        }
    }

    /** Which side of a split keeps running. */
    public enum Strategy {

        /**
         * The side with more than half of the members of the last stable view; on an exact tie, the side holding the
         * oldest member of that view. Members that joined since do not count.
         */
        KEEP_MAJORITY,

        /** The side with at least {@code quorum-size} members. Never run more than 2 x quorum-size - 1 members. */
        STATIC_QUORUM,

        /** The side holding the oldest member of the last stable view (see {@code down-if-alone}). */
        KEEP_OLDEST,

        /**
         * The side whose coordinator holds the coordinator lease in the store. Works for two nodes, and needs a store
         * shared by every node (JDBC).
         */
        STORE_LEASE,

        /**
         * No decision: both sides keep running and an entity may live on both until they merge. Unsafe; for networks
         * that cannot partition.
         */
        OFF;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }
}
