package dev.sharding.autoconfigure.observation;

import dev.sharding.ShardingNode;
import dev.sharding.autoconfigure.ConditionalOnShardingEnabled;
import dev.sharding.autoconfigure.ShardingAutoConfiguration;
import dev.sharding.autoconfigure.ShardingNodeCustomizer;
import dev.sharding.autoconfigure.ShardingProperties;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Asks, tells and their handling by entities as Micrometer observations ({@link ObservationMessageTracing}), when the
 * application has an {@link ObservationRegistry} and a tracer (Micrometer Tracing and a bridge, not its no-op tracer):
 * one trace follows a message from its caller to the entity's node, the trace context crossing in the message's
 * envelope. Without a tracer, messages are observed only with {@code sharding.observation.enabled=true}: an
 * observation per message that no trace needs would cost the actuator alone up to half the throughput of tells.
 * {@code sharding.observation.enabled=false} leaves the node with no tracing at all; single observations are switched
 * off by Boot's {@code management.observations.enable.<name>=false}.
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
     * @param properties {@code sharding.observation.enabled}
     * @param beans where a tracer would be
     * @return the customizer
     */
    @Bean
    ShardingNodeCustomizer shardingTracingCustomizer(
            ObservationMessageTracing tracing, ShardingProperties properties, ListableBeanFactory beans) {
        Boolean enabled = properties.getObservation().getEnabled();
        return builder -> {
            if (Boolean.TRUE.equals(enabled) || Tracers.realTracerIn(beans)) {
                builder.tracing(tracing);
            }
        };
    }
}
