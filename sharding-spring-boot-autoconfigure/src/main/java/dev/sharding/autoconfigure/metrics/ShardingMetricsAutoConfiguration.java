package dev.sharding.autoconfigure.metrics;

import dev.sharding.ShardingNode;
import dev.sharding.autoconfigure.ShardingAutoConfiguration;
import dev.sharding.autoconfigure.ShardingNodeCustomizer;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters of the sharding node, when Micrometer is on the class path and the application has a
 * {@link MeterRegistry} (Spring Boot's actuator gives one): {@link MicrometerShardingMetrics} for what the node counts
 * and times, {@link ShardingNodeMeters} for its gauges. Individual meters are switched off as any other, with
 * {@code management.metrics.enable.sharding.<name>=false}.
 */
@AutoConfiguration(
        after = {
            ShardingAutoConfiguration.class,
            MetricsAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class
        })
@ConditionalOnClass({MeterRegistry.class, ShardingNode.class})
@ConditionalOnBean({MeterRegistry.class, ShardingNode.class})
public final class ShardingMetricsAutoConfiguration {

    /**
     * The recorder the node reports to.
     *
     * @param registry the application's registry
     * @return the recorder
     */
    @Bean
    @ConditionalOnMissingBean
    MicrometerShardingMetrics shardingMetrics(MeterRegistry registry) {
        return new MicrometerShardingMetrics(registry);
    }

    /**
     * Gives the recorder to the node's builder.
     *
     * @param metrics the recorder
     * @return the customizer
     */
    @Bean
    ShardingNodeCustomizer shardingMetricsCustomizer(MicrometerShardingMetrics metrics) {
        return builder -> builder.metrics(metrics);
    }

    /**
     * The node's gauges, bound by Spring Boot to every registry.
     *
     * @param node the node
     * @return the binder
     */
    @Bean
    ShardingNodeMeters shardingNodeMeters(ShardingNode node) {
        return new ShardingNodeMeters(node);
    }
}
