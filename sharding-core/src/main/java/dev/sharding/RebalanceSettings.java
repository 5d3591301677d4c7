package dev.sharding;

import java.time.Duration;
import java.util.Objects;

/**
 * When the coordinator moves shards from the most to the least loaded members, and how many per round. Part of
 * {@link ShardingSettings}; the properties {@code sharding.rebalance-interval} and {@code sharding.rebalance.*}.
 *
 * @param interval how often the coordinator considers moving shards
 * @param stableAfter how long no member may have joined or left before the coordinator moves shards; a change of
 *     membership starts a round once it has been stable that long, without waiting for the interval
 * @param absoluteLimit the most shards one rebalance round moves
 * @param relativeLimit the most shards one rebalance round moves, as a fraction of all shards of the type
 */
public record RebalanceSettings(Duration interval, Duration stableAfter, int absoluteLimit, double relativeLimit) {

    /** Default rebalance interval. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);

    /** Default time the membership must be stable before a rebalance round. */
    public static final Duration DEFAULT_STABLE_AFTER = Duration.ofSeconds(2);

    /** Default most shards moved per rebalance round. */
    public static final int DEFAULT_ABSOLUTE_LIMIT = 20;

    /** Default most shards moved per rebalance round, relative to all shards of the type. */
    public static final double DEFAULT_RELATIVE_LIMIT = 0.1;

    /** The defaults. */
    public static final RebalanceSettings DEFAULT = new RebalanceSettings(
            DEFAULT_INTERVAL, DEFAULT_STABLE_AFTER, DEFAULT_ABSOLUTE_LIMIT, DEFAULT_RELATIVE_LIMIT);

    /**
     * Checks the arguments are not null.
     */
    public RebalanceSettings {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(stableAfter, "stableAfter");
    }

    /**
     * Copy with another interval.
     *
     * @param value how often the coordinator considers moving shards
     * @return the copy
     */
    public RebalanceSettings withInterval(Duration value) {
        return new RebalanceSettings(value, stableAfter, absoluteLimit, relativeLimit);
    }

    /**
     * Copy with another time the membership must be stable before a round.
     *
     * @param value the time, zero for no wait
     * @return the copy
     */
    public RebalanceSettings withStableAfter(Duration value) {
        return new RebalanceSettings(interval, value, absoluteLimit, relativeLimit);
    }

    /**
     * Copy with another absolute limit per round.
     *
     * @param value the most shards per round
     * @return the copy
     */
    public RebalanceSettings withAbsoluteLimit(int value) {
        return new RebalanceSettings(interval, stableAfter, value, relativeLimit);
    }

    /**
     * Copy with another relative limit per round.
     *
     * @param value the fraction of the type's shards, more than 0 and at most 1
     * @return the copy
     */
    public RebalanceSettings withRelativeLimit(double value) {
        return new RebalanceSettings(interval, stableAfter, absoluteLimit, value);
    }

    /**
     * Checks these settings.
     *
     * @throws InvalidSettingException naming the first invalid setting, its value and the rule
     */
    void validate() {
        SettingsValidation.require(
                SettingsValidation.positive(interval), "rebalance-interval", interval, "must be positive");
        SettingsValidation.require(
                !stableAfter.isNegative(), "rebalance.stable-after", stableAfter, "must be zero (no wait) or positive");
        SettingsValidation.require(absoluteLimit > 0, "rebalance.absolute-limit", absoluteLimit, "must be positive");
        SettingsValidation.require(
                relativeLimit > 0 && relativeLimit <= 1,
                "rebalance.relative-limit",
                relativeLimit,
                "must be more than 0 and at most 1");
    }
}
