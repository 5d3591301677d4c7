package dev.sharding.autoconfigure.actuate;

import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.autoconfigure.ShardingAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link ShardingEndpoint}, when the actuator is present, a sharding node runs and the
 * endpoint is available (enabled and exposed).
 */
@AutoConfiguration(after = ShardingAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnAvailableEndpoint(ShardingEndpoint.class)
public final class ShardingEndpointAutoConfiguration {

    /**
     * The endpoint, waiting for the members' answers as long as an ask does by default.
     *
     * @param node the node
     * @param settings its settings
     * @return the endpoint
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean({ShardingNode.class, ShardingSettings.class})
    ShardingEndpoint shardingEndpoint(ShardingNode node, ShardingSettings settings) {
        return new ShardingEndpoint(node, settings.askTimeout());
    }
}
