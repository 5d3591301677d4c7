package dev.sharding.autoconfigure.metrics;

import dev.sharding.LocalRegion;
import dev.sharding.Member;
import dev.sharding.ShardingNode;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.function.ToIntFunction;

/**
 * The node's gauges, read when the registry collects them: {@code sharding.entities.active},
 * {@code sharding.shards.hosted} and {@code sharding.buffered} per entity type (tag {@code type}),
 * {@code sharding.members} (the members of this node's view) and {@code sharding.coordinator} (1 on the node whose
 * coordinator is active, else 0); and for backpressure {@code sharding.backpressure.queued.bytes} (the most bytes
 * queued now toward one member), {@code sharding.backpressure.refused} (a counter of the frames refused or dropped
 * because the member they were for was behind) and {@code sharding.backpressure.suspected} (a counter of the members
 * this node reported to failure detection for staying behind). A stopped node reads 0 everywhere.
 */
public final class ShardingNodeMeters implements MeterBinder {

    private final ShardingNode node;

    /** @param node the node to read */
    public ShardingNodeMeters(ShardingNode node) {
        this.node = node;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (String type : node.typeNames()) {
            perType(
                    registry,
                    type,
                    "sharding.entities.active",
                    "Live entities on this node",
                    LocalRegion::activeEntities);
            perType(registry, type, "sharding.shards.hosted", "Shards hosted on this node", LocalRegion::hostedShards);
            perType(
                    registry,
                    type,
                    "sharding.buffered",
                    "Messages waiting on this node for their shard's home",
                    LocalRegion::bufferedMessages);
        }
        Gauge.builder("sharding.members", node, n -> n.isRunning() ? n.members().size() : 0)
                .description("Members in this node's view of the cluster")
                .register(registry);
        Gauge.builder("sharding.coordinator", node, ShardingNodeMeters::coordinatorHere)
                .description("1 on the node whose coordinator is active, else 0")
                .register(registry);
        Gauge.builder(
                        "sharding.backpressure.queued.bytes",
                        node,
                        n -> n.isRunning() ? n.traffic().maxQueuedBytes() : 0)
                .description("The most bytes queued now toward one member")
                .baseUnit("bytes")
                .register(registry);
        FunctionCounter.builder(
                        "sharding.backpressure.refused",
                        node,
                        n -> n.isRunning() ? n.traffic().refusedFrames() : 0)
                .description("Frames refused or dropped because the member they were for was behind")
                .register(registry);
        FunctionCounter.builder(
                        "sharding.backpressure.suspected",
                        node,
                        n -> n.isRunning() ? n.traffic().membersReportedBehind() : 0)
                .description("Members this node reported to failure detection for staying behind")
                .register(registry);
    }

    private void perType(
            MeterRegistry registry, String type, String name, String description, ToIntFunction<LocalRegion> read) {
        Gauge.builder(name, node, n -> n.isRunning() ? read.applyAsInt(n.localRegion(type)) : 0)
                .description(description)
                .tag("type", type)
                .register(registry);
    }

    private static double coordinatorHere(ShardingNode node) {
        if (!node.isRunning()) {
            return 0;
        }
        Member coordinator = node.coordinator();
        try {
            return coordinator != null && coordinator.equals(node.self()) ? 1 : 0;
        } catch (RuntimeException e) {
            return 0; // not joined yet
        }
    }
}
