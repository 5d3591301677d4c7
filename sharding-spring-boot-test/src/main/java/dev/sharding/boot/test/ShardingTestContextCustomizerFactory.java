package dev.sharding.boot.test;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Gives the context of a test class marked {@link AutoConfigureShardingTest} the test node's properties. Registered in
 * {@code META-INF/spring.factories}. The context of any other test class gets a warning if it runs a node that
 * could join a cluster outside the JVM ({@link UnisolatedTestNodeWarning}).
 */
final class ShardingTestContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public @Nullable ContextCustomizer createContextCustomizer(
            Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        AutoConfigureShardingTest annotation =
                TestContextAnnotationUtils.findMergedAnnotation(testClass, AutoConfigureShardingTest.class);
        if (annotation == null) {
            return UnisolatedTestNodeWarning.INSTANCE;
        }
        return new ShardingTestContextCustomizer(
                annotation.store() == AutoConfigureShardingTest.Store.MEMORY, annotation.serializeLocalMessages());
    }
}
