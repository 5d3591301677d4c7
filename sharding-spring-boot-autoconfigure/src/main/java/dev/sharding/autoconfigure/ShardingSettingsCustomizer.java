package dev.sharding.autoconfigure;

import dev.sharding.ShardingSettings;

/**
 * Changes the settings bound from the {@code sharding.*} properties before the node is built. Settings are immutable:
 * a customizer returns changed copies made with the {@code withX} methods. Every bean of this type is applied, in
 * {@link org.springframework.core.annotation.Order} order, and the result is validated again.
 */
@FunctionalInterface
public interface ShardingSettingsCustomizer {

    /**
     * Changes the settings.
     *
     * @param settings the settings so far
     * @return the changed settings
     */
    ShardingSettings customize(ShardingSettings settings);
}
