package dev.sharding.autoconfigure;

import dev.sharding.PassivationSettings;
import java.time.Duration;
import org.springframework.boot.context.properties.PropertyMapper;

/**
 * When entities are passivated (stopped to free memory, their state kept), bound from
 * {@code sharding.passivation.*}.
 */
public class PassivationProperties {

    /**
     * How long an entity may go without a message before it is passivated; 0 for never. Each entity type can have
     * its own (sharding.entities.&lt;type&gt;.idle-timeout).
     */
    private Duration idleTimeout = PassivationSettings.DEFAULT_IDLE_TIMEOUT;

    /**
     * Most live entities per entity type on this node; beyond it, the least recently used are passivated. 0 for no
     * limit.
     */
    private int maxActiveEntities = PassivationSettings.DEFAULT_MAX_ACTIVE_ENTITIES;

    /**
     * Most live entities on this node of the entity types whose passivation strategy has a limit
     * (sharding.entities.&lt;type&gt;.passivation.strategy least-recently-used, most-recently-used or
     * least-frequently-used), divided evenly over those types.
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

    public int getMaxActiveEntities() {
        return this.maxActiveEntities;
    }

    public void setMaxActiveEntities(int maxActiveEntities) {
        this.maxActiveEntities = maxActiveEntities;
    }

    /**
     * These properties as core settings.
     *
     * @return the settings
     */
    PassivationSettings toSettings() {
        PropertyMapper map = PropertyMapper.get();
        PassivationSettings settings =
                map.from(this.idleTimeout).to(PassivationSettings.DEFAULT, PassivationSettings::withIdleTimeout);
        settings = map.from(this.maxActiveEntities).to(settings, PassivationSettings::withMaxActiveEntities);
        return map.from(this.activeEntityLimit).to(settings, PassivationSettings::withActiveEntityLimit);
    }
}
