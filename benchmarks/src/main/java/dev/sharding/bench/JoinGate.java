package dev.sharding.bench;

import dev.sharding.autoconfigure.ShardingLifecycle;
import org.springframework.context.SmartLifecycle;

/**
 * Holds a node back from joining its cluster until the launcher says {@code JOIN}: started in the phase just before
 * the sharding node's, it blocks there. The JVM, the Spring context, the entity types and the node object exist
 * already; only the channel's connection (the join) waits. W6 uses it for the node that joins a running cluster.
 */
final class JoinGate implements SmartLifecycle {

    private final NodeIo io;

    private volatile boolean running;

    JoinGate(NodeIo io) {
        this.io = io;
    }

    @Override
    public void start() {
        NodeIo.emit("WAITING-JOIN", Long.toString(ProcessHandle.current().pid()));
        try {
            String line;
            while (!(line = io.take()).equals("JOIN")) {
                NodeIo.emit("ERROR", "expected JOIN, got " + line);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for JOIN", e);
        }
        running = true;
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return ShardingLifecycle.PHASE - 1;
    }
}
