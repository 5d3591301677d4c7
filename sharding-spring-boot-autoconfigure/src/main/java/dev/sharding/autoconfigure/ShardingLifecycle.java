package dev.sharding.autoconfigure;

import dev.sharding.ShardingException;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the auto-configured {@link ShardingNode} when the application context starts (the channel connects and
 * the node joins its cluster) and makes it leave gracefully when the context closes.
 *
 * <p>Its phase, {@link #PHASE}, is lower than the web server's, so sharding is running before the first request
 * arrives and is stopped only after the web server has stopped taking requests. Stopping happens before singleton
 * beans are destroyed, so entities stop (and their {@code @PreDestroy} methods run) while the beans they use still
 * work. Stopping is asynchronous: {@link #stop(Runnable)} asks the coordinator to hand off every shard hosted here
 * (the node keeps serving while it drains, and no message is lost), then stops what is left, leaves the cluster and
 * runs the callback. The phase's shutdown timeout is raised to cover {@code sharding.handoff-timeout}. A node cannot
 * be started again once stopped.
 */
public final class ShardingLifecycle implements SmartLifecycle {

    /**
     * The phase: 4096 below the default, below the web server's start/stop and graceful shutdown phases.
     */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private static final Logger log = LoggerFactory.getLogger(ShardingLifecycle.class);

    private final ShardingNode node;

    private final ShardingSettings settings;

    /**
     * Creates the lifecycle of a node.
     *
     * @param node the node
     * @param settings the settings it was built with, for failure reports
     */
    public ShardingLifecycle(ShardingNode node, ShardingSettings settings) {
        this.node = node;
        this.settings = settings;
    }

    /**
     * Joins the cluster; returns once this node is a member.
     *
     * @throws ShardingStartupException if the cluster cannot be joined
     */
    @Override
    public void start() {
        try {
            this.node.start();
        } catch (ShardingException | IllegalArgumentException e) {
            throw new ShardingStartupException(this.settings, e);
        }
    }

    /**
     * Not supported: a node is stopped asynchronously through {@link #stop(Runnable)}.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public void stop() {
        throw new UnsupportedOperationException("Stop must not be invoked directly: use stop(Runnable)");
    }

    /**
     * Hands off every shard hosted here, stops what is left and leaves the cluster, on a thread of its own, then runs
     * the callback.
     *
     * @param callback run once the node has left
     */
    @Override
    public void stop(Runnable callback) {
        Thread stopper = new Thread(
                () -> {
                    try {
                        this.node.close();
                    } catch (RuntimeException e) {
                        log.warn("Stopping sharding node {} failed", this.node.nodeName(), e);
                    } finally {
                        callback.run();
                    }
                },
                "sharding-shutdown");
        stopper.start();
    }

    /**
     * Whether the node runs.
     *
     * @return true between start and stop
     */
    @Override
    public boolean isRunning() {
        return this.node.isRunning();
    }

    /**
     * The phase.
     *
     * @return {@link #PHASE}
     */
    @Override
    public int getPhase() {
        return PHASE;
    }
}
