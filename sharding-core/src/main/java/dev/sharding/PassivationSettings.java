package dev.sharding;

import java.time.Duration;
import java.util.Objects;

/**
 * When a node passivates live entities: after an idle time, and beyond a limit of live entities. Part of
 * {@link ShardingSettings}; the properties {@code sharding.passivation.*}. Each entity type chooses its
 * {@link PassivationStrategy} and may have its own idle timeout ({@link EntityTypeSettings}).
 *
 * @param idleTimeout how long an entity may go without a message before it is passivated; zero for never
 * @param maxActiveEntities deprecated: the limit of live entities of every type with the
 *     {@link PassivationStrategy#IDLE} strategy and no limit of its own; zero for none. Give a type its own limit
 *     instead ({@link EntityTypeSettings#activeEntityLimit()}, {@code sharding.entities.<type>.passivation.active-entity-limit})
 * @param activeEntityLimit the most live entities on this node of the types whose passivation strategy has a limit
 *     ({@link PassivationStrategy#limited()}), divided evenly over those of them without a limit of their own
 */
public record PassivationSettings(
        Duration idleTimeout, @Deprecated(since = "0.1.0") int maxActiveEntities, int activeEntityLimit) {

    /** Default idle time before an entity is passivated. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(120);

    /** Default of the deprecated limit of live entities per type for the idle strategy: none. */
    public static final int DEFAULT_MAX_ACTIVE_ENTITIES = 0;

    /** Default limit of live entities per node for the limit strategies of passivation (as Pekko's). */
    public static final int DEFAULT_ACTIVE_ENTITY_LIMIT = 100_000;

    /** The defaults. */
    public static final PassivationSettings DEFAULT =
            new PassivationSettings(DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_ACTIVE_ENTITIES, DEFAULT_ACTIVE_ENTITY_LIMIT);

    /**
     * Checks the arguments are not null.
     */
    public PassivationSettings {
        Objects.requireNonNull(idleTimeout, "idleTimeout");
    }

    /**
     * Copy with another idle time before passivation.
     *
     * @param value the time, or zero for never
     * @return the copy
     */
    public PassivationSettings withIdleTimeout(Duration value) {
        return new PassivationSettings(value, maxActiveEntities, activeEntityLimit);
    }

    /**
     * Copy with another limit of live entities per type for the idle strategy.
     *
     * @param value the limit, or zero for none
     * @return the copy
     * @deprecated give each type its own limit: {@link EntityTypeSettings.Builder#activeEntityLimit(Integer)}
     */
    @Deprecated(since = "0.1.0")
    public PassivationSettings withMaxActiveEntities(int value) {
        return new PassivationSettings(idleTimeout, value, activeEntityLimit);
    }

    /**
     * Copy with another limit of live entities per node for the limit strategies.
     *
     * @param value the limit, divided evenly over the types whose strategy has a limit and that have none of their own
     * @return the copy
     */
    public PassivationSettings withActiveEntityLimit(int value) {
        return new PassivationSettings(idleTimeout, maxActiveEntities, value);
    }

    /**
     * Checks these settings.
     *
     * @throws InvalidSettingException naming the first invalid setting, its value and the rule
     */
    void validate() {
        SettingsValidation.require(
                !idleTimeout.isNegative(), "passivation.idle-timeout", idleTimeout, "must be zero (never) or positive");
        SettingsValidation.require(
                maxActiveEntities >= 0,
                "passivation.max-active-entities",
                maxActiveEntities,
                "must be zero (no limit) or positive");
        SettingsValidation.require(
                activeEntityLimit > 0, "passivation.active-entity-limit", activeEntityLimit, "must be positive");
    }
}
