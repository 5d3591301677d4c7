package dev.sharding.boot.test;

import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import java.util.Objects;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.protocols.DISCARD;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One node of a {@link ShardingTestCluster}: an application context of the application under test, with its sharding
 * node. Obtained from the cluster, never made directly.
 */
public final class ShardingTestNode {

    private final String name;

    private final ConfigurableApplicationContext context;

    private final ShardingNode node;

    private final DISCARD discard;

    private final JChannel channel;

    ShardingTestNode(String name, ConfigurableApplicationContext context, JChannel channel, DISCARD discard) {
        this.name = name;
        this.context = context;
        this.node = context.getBean(ShardingNode.class);
        this.channel = channel;
        this.discard = discard;
    }

    /**
     * The node's name ({@code sharding.node-name}): the cluster's prefix and the node's number, from 1.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * The application context of the node.
     *
     * @return the context, closed once the node was stopped or killed
     */
    public ConfigurableApplicationContext context() {
        return context;
    }

    /**
     * The node's sharding node.
     *
     * @return the node
     */
    public ShardingNode node() {
        return node;
    }

    /**
     * The node's region of an entity class, the door to its entities as the application's beans use it.
     *
     * @param entityClass the {@code @ShardedEntity} class
     * @param <T> the entity class
     * @return the region
     */
    public <T> ShardRegion<T> region(Class<T> entityClass) {
        return node.region(Objects.requireNonNull(entityClass, "entityClass"));
    }

    /**
     * A bean of the node's context.
     *
     * @param type the bean's type
     * @param <T> the type
     * @return the only bean of that type
     */
    public <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    /**
     * The HTTP port of the node, for applications with a web server (the cluster starts each on a free port).
     *
     * @return the port, or {@code null} when the node has no web server
     */
    public @Nullable Integer port() {
        return context.getEnvironment().getProperty("local.server.port", Integer.class);
    }

    /**
     * Whether the node runs: not stopped, killed or stopped by itself.
     *
     * @return true while it runs
     */
    public boolean isRunning() {
        return context.isActive() && node.isRunning();
    }

    /** The partition injector below the node's protocols. */
    DISCARD discard() {
        return discard;
    }

    /** The node's JGroups address. */
    @Nullable
    Address address() {
        return channel.getAddress();
    }

    @Override
    public String toString() {
        return name + (isRunning() ? "" : " (not running)");
    }
}
