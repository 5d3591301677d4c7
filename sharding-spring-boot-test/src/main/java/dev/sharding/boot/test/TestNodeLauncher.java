package dev.sharding.boot.test;

import dev.sharding.autoconfigure.JChannelCustomizer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.jgroups.JChannel;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;
import org.springframework.boot.Banner;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts one node of a {@link ShardingTestCluster}: an application context with a network that can be cut. */
final class TestNodeLauncher {

    private TestNodeLauncher() {}

    /**
     * Starts a node.
     *
     * @param clusterName the cluster's name
     * @param number the node's number, from 1
     * @param sources the application's sources
     * @param properties the properties every node of the cluster gets (changed: the node's own are added)
     * @param extraProperties the test's own properties, as {@code name=value}
     * @return the node, started
     */
    static ShardingTestNode launch(
            String clusterName,
            int number,
            Class<?>[] sources,
            Map<String, Object> properties,
            List<String> extraProperties) {
        String name = clusterName.substring(0, "test-cluster-".length() + 8) + "-n" + number;
        AtomicReference<JChannel> channel = new AtomicReference<>();
        DISCARD discard = new DISCARD();
        JChannelCustomizer partitionable = ch -> {
            try {
                // just above the transport: a cut drops every message, including failure detection's
                ch.getProtocolStack().insertProtocol(discard, ProtocolStack.Position.ABOVE, TP.class);
            } catch (Exception e) {
                throw new IllegalStateException("Cannot add the partition injector to the stack of " + name, e);
            }
            channel.set(ch);
        };
        properties.put("sharding.node-name", name);
        properties.put("server.port", "0");
        // a shard-home request lost while the cluster changes is repeated soon, so recovery takes little time
        properties.put("sharding.retry-interval", "300ms");
        for (String property : extraProperties) {
            int equals = property.indexOf('=');
            properties.put(property.substring(0, equals), property.substring(equals + 1));
        }
        ApplicationContextInitializer<ConfigurableApplicationContext> injector =
                context -> context.getBeanFactory().registerSingleton("shardingTestPartitionInjector", partitionable);
        // as command-line arguments: over the application's own configuration files, as a test's properties are
        String[] arguments = properties.entrySet().stream()
                .map(e -> "--" + e.getKey() + "=" + e.getValue())
                .toArray(String[]::new);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(sources)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .initializers(injector)
                .run(arguments);
        JChannel ch = channel.get();
        if (ch == null) {
            context.close();
            throw new IllegalStateException("Node " + name + " started without a JGroups channel: is sharding on?");
        }
        return new ShardingTestNode(name, context, ch, discard);
    }
}
