package dev.sharding.autoconfigure.actuate;

import dev.sharding.Member;
import dev.sharding.ShardingNode;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of a sharding node: UP once it runs and its regions are registered with the cluster's coordinator (it
 * can then host and reach entities), OUT_OF_SERVICE while it hands off its shards to leave or while it is on the
 * losing side of a network partition (it refuses messages until the partition heals), DOWN otherwise. Details: the
 * node name, the coordinator, the number of members, why it does not serve, and why no shard is placed yet while the
 * cluster waits for {@code sharding.min-nr-of-members} members (the node stays UP then: it serves as soon as shards are
 * placed, and a readiness check that waited for the other members could keep them from starting).
 */
public class ShardingHealthIndicator extends AbstractHealthIndicator {

    private final ShardingNode node;

    /**
     * Creates the indicator.
     *
     * @param node the node
     */
    public ShardingHealthIndicator(ShardingNode node) {
        super("Sharding health check failed");
        this.node = node;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        boolean running = this.node.isRunning();
        String refused = running ? this.node.refusedReason() : null;
        String partitioned = running ? this.node.partitionedReason() : null;
        if (refused != null) {
            // for good: the node's settings differ from the cluster's, and only a restart with theirs helps
            builder.down().withDetail("refused", refused);
        } else if (running && this.node.isLeaving()) {
            builder.outOfService();
        } else if (partitioned != null) {
            builder.outOfService().withDetail("partitioned", partitioned);
        } else if (running && this.node.isRegistered()) {
            builder.up();
        } else {
            builder.down();
        }
        builder.withDetail("node", this.node.nodeName());
        Member coordinator = running ? this.node.coordinator() : null;
        if (coordinator != null) {
            builder.withDetail("coordinator", coordinator.name());
        }
        builder.withDetail("members", running ? this.node.members().size() : 0);
        String waiting = running ? this.node.placementWait() : null;
        if (waiting != null) {
            builder.withDetail("waiting", waiting);
        }
    }
}
