package dev.sharding.boot.test;

import org.jspecify.annotations.Nullable;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.support.TestPropertySourceUtils;

/**
 * Adds the properties of a test node to a test context, with a cluster name made for that context alone, ranked just
 * below the test's inlined properties so that the test can still change them. Two contexts with the same settings are
 * equal (Spring's context cache may share one context between test classes), yet each context made gets a cluster
 * of its own.
 */
final class ShardingTestContextCustomizer implements ContextCustomizer {

    /** The name of the property source this adds. */
    static final String PROPERTY_SOURCE_NAME = "shardingTestProperties";

    private final boolean memoryStore;

    private final boolean serializeLocalMessages;

    ShardingTestContextCustomizer(boolean memoryStore, boolean serializeLocalMessages) {
        this.memoryStore = memoryStore;
        this.serializeLocalMessages = serializeLocalMessages;
    }

    @Override
    public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
        MapPropertySource source = new MapPropertySource(
                PROPERTY_SOURCE_NAME,
                ShardingTestProperties.of(
                        ShardingTestProperties.uniqueClusterName("test"), memoryStore, serializeLocalMessages));
        MutablePropertySources sources = context.getEnvironment().getPropertySources();
        String inlined = TestPropertySourceUtils.INLINED_PROPERTIES_PROPERTY_SOURCE_NAME;
        if (sources.contains(inlined)) {
            sources.addAfter(inlined, source);
        } else if (sources.contains("configurationProperties")) {
            sources.addAfter("configurationProperties", source);
        } else {
            sources.addFirst(source);
        }
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof ShardingTestContextCustomizer that
                && memoryStore == that.memoryStore
                && serializeLocalMessages == that.serializeLocalMessages;
    }

    @Override
    public int hashCode() {
        return Boolean.hashCode(memoryStore) * 31 + Boolean.hashCode(serializeLocalMessages);
    }
}
