package dev.sharding.boot.test;

import dev.sharding.ShardingNode;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.core.env.Environment;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Warns when the context of a test class without {@link AutoConfigureShardingTest} runs a sharding node on the
 * built-in TCP stack: that node joins any node of its cluster running on the machine (a developer's copy, another
 * test run), takes shards from it and works on its store, and the test reads and changes that cluster's entities.
 * Stateless, so that it does not split Spring's context cache.
 */
final class UnisolatedTestNodeWarning implements ContextCustomizer {

    static final UnisolatedTestNodeWarning INSTANCE = new UnisolatedTestNodeWarning();

    private static final Logger LOG = LoggerFactory.getLogger(UnisolatedTestNodeWarning.class);

    private UnisolatedTestNodeWarning() {}

    @Override
    public void customizeContext(
            ConfigurableApplicationContext context, @Nullable MergedContextConfiguration mergedConfig) {
        context.addApplicationListener((ApplicationListener<ContextRefreshedEvent>) event -> {
            if (event.getApplicationContext() != context
                    || context.getBeanNamesForType(ShardingNode.class).length == 0) {
                return;
            }
            Environment env = context.getEnvironment();
            String stack = env.getProperty("sharding.jgroups.config", "");
            if (stack.isBlank()) {
                LOG.warn(
                        "This test's sharding node runs on the built-in TCP stack, in cluster '{}' with"
                                + " sharding.jgroups.initial-hosts={}: it joins any node of that cluster running on"
                                + " this machine, takes shards from it and works on its store. Mark the test class"
                                + " @AutoConfigureShardingTest to keep the node to a cluster of its own in this JVM,"
                                + " with its state in memory.",
                        env.getProperty("sharding.cluster-name", "sharding"),
                        env.getProperty("sharding.jgroups.initial-hosts", "127.0.0.1[7800..7809]"));
            }
        });
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof UnisolatedTestNodeWarning;
    }

    @Override
    public int hashCode() {
        return UnisolatedTestNodeWarning.class.hashCode();
    }
}
