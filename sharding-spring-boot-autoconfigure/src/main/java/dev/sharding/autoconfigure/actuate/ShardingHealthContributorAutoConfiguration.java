package dev.sharding.autoconfigure.actuate;

import dev.sharding.ShardingNode;
import dev.sharding.autoconfigure.ShardingAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code sharding} health indicator, when Spring Boot's health support is present, a
 * sharding node runs and {@code management.health.sharding.enabled} is not false.
 */
@AutoConfiguration(after = ShardingAutoConfiguration.class)
@ConditionalOnClass(AbstractHealthIndicator.class)
@ConditionalOnBean(ShardingNode.class)
@ConditionalOnEnabledHealthIndicator("sharding")
public final class ShardingHealthContributorAutoConfiguration {

    /**
     * The indicator, named {@code sharding} after its bean name.
     *
     * @param node the node
     * @return the indicator
     */
    @Bean
    @ConditionalOnMissingBean(name = "shardingHealthIndicator")
    ShardingHealthIndicator shardingHealthIndicator(ShardingNode node) {
        return new ShardingHealthIndicator(node);
    }
}
