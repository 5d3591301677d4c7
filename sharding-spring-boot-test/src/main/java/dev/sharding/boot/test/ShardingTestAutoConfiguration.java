package dev.sharding.boot.test;

import dev.sharding.autoconfigure.ShardingAutoConfiguration;
import dev.sharding.autoconfigure.ShardingNodeCustomizer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;

/**
 * The test mode of {@value ShardingTestProperties#SERIALIZE_LOCAL_MESSAGES}: when true, the node sends every message
 * and reply delivered within it through the codec and back, as between two nodes. Off unless the property is true
 * ({@link AutoConfigureShardingTest} sets it), so that having this module on the class path changes nothing else.
 */
@AutoConfiguration(before = ShardingAutoConfiguration.class)
@ConditionalOnBooleanProperty(ShardingTestProperties.SERIALIZE_LOCAL_MESSAGES)
public final class ShardingTestAutoConfiguration {

    /**
     * Turns the test mode on in the node's builder.
     *
     * @return the customizer
     */
    @Bean
    ShardingNodeCustomizer shardingSerializeLocalMessages() {
        return builder -> builder.serializeLocalMessages(true);
    }
}
