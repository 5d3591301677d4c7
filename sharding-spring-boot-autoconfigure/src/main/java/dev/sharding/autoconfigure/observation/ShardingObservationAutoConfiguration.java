package dev.sharding.autoconfigure.observation;

import dev.sharding.ShardingNode;
import dev.sharding.autoconfigure.ConditionalOnShardingEnabled;
import dev.sharding.autoconfigure.ShardingAutoConfiguration;
import dev.sharding.autoconfigure.ShardingNodeCustomizer;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Asks, tells and their handling by entities as Micrometer observations ({@link ObservationMessageTracing}), when the
 * application has an {@link ObservationRegistry} (Spring Boot's actuator gives one): with a tracer (Micrometer
 * Tracing and a bridge), one trace follows a message from its caller to the entity's node, the trace context crossing
 * in the message's envelope. Switched off by {@code sharding.observation.enabled=false}, which leaves the node with no
 * tracing at all; single observations by Boot's {@code management.observations.enable.<name>=false}.
 */
@AutoConfiguration(after = {ShardingAutoConfiguration.class, ObservationAutoConfiguration.class})
@ConditionalOnShardingEnabled
@ConditionalOnClass({ObservationRegistry.class, ShardingNode.class})
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "sharding.observation.enabled", matchIfMissing = true)
public final class ShardingObservationAutoConfiguration {

    /**
     * The node's tracing, as observations in the application's registry.
     *
     * @param registry the application's registry
     * @return the tracing
     */
    @Bean
    @ConditionalOnMissingBean
    ObservationMessageTracing shardingMessageTracing(ObservationRegistry registry) {
        return new ObservationMessageTracing(registry);
    }

    /**
     * Gives the tracing to the node's builder.
     *
     * @param tracing the tracing
     * @return the customizer
     */
    @Bean
    ShardingNodeCustomizer shardingTracingCustomizer(ObservationMessageTracing tracing) {
        return builder -> builder.tracing(tracing);
    }
}
