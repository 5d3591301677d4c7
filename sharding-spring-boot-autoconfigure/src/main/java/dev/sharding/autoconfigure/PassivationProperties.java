package dev.sharding.autoconfigure;

import dev.sharding.PassivationSettings;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.boot.context.properties.PropertyMapper;

/**
 * When entities are passivated (stopped to free memory, their state kept), bound from
 * {@code sharding.passivation.*}.
 */
public class PassivationProperties {

    private static final Logger log = LoggerFactory.getLogger(PassivationProperties.class);

    /**
     * How long an entity may go without a message before it is passivated; 0 for never. Each entity type can have
     * its own (sharding.entities.&lt;type&gt;.idle-timeout).
     */
    private Duration idleTimeout = PassivationSettings.DEFAULT_IDLE_TIMEOUT;

    /**
     * Deprecated: the limit of live entities on this node of each entity type with the idle passivation strategy and
     * no limit of its own. 0 for none.
     */
    private int maxActiveEntities = PassivationSettings.DEFAULT_MAX_ACTIVE_ENTITIES;

    /**
     * Most live entities on this node of the entity types whose passivation strategy has a limit
     * (sharding.entities.&lt;type&gt;.passivation.strategy least-recently-used, most-recently-used or
     * least-frequently-used), divided evenly over those of them without a limit of their own
     * (sharding.entities.&lt;type&gt;.passivation.active-entity-limit).
     */
    private int activeEntityLimit = PassivationSettings.DEFAULT_ACTIVE_ENTITY_LIMIT;

    public int getActiveEntityLimit() {
        return this.activeEntityLimit;
    }

    public void setActiveEntityLimit(int activeEntityLimit) {
        this.activeEntityLimit = activeEntityLimit;
    }

    public Duration getIdleTimeout() {
        return this.idleTimeout;
    }

    public void setIdleTimeout(Duration idleTimeout) {
        this.idleTimeout = idleTimeout;
    }

    /**
     * The deprecated limit of live entities of the idle types.
     *
     * @return the limit
     * @deprecated give each type its own limit, sharding.entities.&lt;type&gt;.passivation.active-entity-limit
     */
    @Deprecated(since = "0.1.0")
    @DeprecatedConfigurationProperty(
            replacement = "sharding.entities.<type>.passivation.active-entity-limit",
            reason = "One limit concept: each entity type may have its own active-entity-limit, whatever its strategy",
            since = "0.1.0")
    public int getMaxActiveEntities() {
        return this.maxActiveEntities;
    }

    /**
     * Sets the deprecated limit of live entities of the idle types.
     *
     * @param maxActiveEntities the limit
     * @deprecated give each type its own limit, sharding.entities.&lt;type&gt;.passivation.active-entity-limit
     */
    @Deprecated(since = "0.1.0")
    public void setMaxActiveEntities(int maxActiveEntities) {
        this.maxActiveEntities = maxActiveEntities;
    }

    /**
     * These properties as core settings.
     *
     * @return the settings
     */
    @SuppressWarnings("deprecation")
    PassivationSettings toSettings() {
        PropertyMapper map = PropertyMapper.get();
        PassivationSettings settings =
                map.from(this.idleTimeout).to(PassivationSettings.DEFAULT, PassivationSettings::withIdleTimeout);
        if (this.maxActiveEntities != PassivationSettings.DEFAULT_MAX_ACTIVE_ENTITIES) {
            log.warn(
                    "sharding.passivation.max-active-entities={} is deprecated: it still limits every entity type with "
                            + "the idle passivation strategy and no limit of its own; set "
                            + "sharding.entities.<type>.passivation.active-entity-limit instead",
                    this.maxActiveEntities);
        }
        settings = map.from(this.maxActiveEntities).to(settings, PassivationSettings::withMaxActiveEntities);
        return map.from(this.activeEntityLimit).to(settings, PassivationSettings::withActiveEntityLimit);
    }
}
