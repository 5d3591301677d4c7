package dev.sharding.internal.node;

import dev.sharding.Member;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.lease.LeaseHost;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.spi.ShardingStore;
import java.util.List;

/**
 * Who the node is, how it sends and where its control thread is: the first thing built, from the parts that exist
 * before any other ({@link Membership}, {@link ControlLoop}, the node's sender). The lease keeper sees the node only
 * through it ({@link LeaseHost}); {@link NodeLinks} answers the regions' same questions with it.
 */
final class NodeBasics implements LeaseHost {

    private final ShardingSettings settings;

    private final ShardingStore store;

    private final Membership membership;

    private final ControlLoop control;

    private final Outbound outbound;

    NodeBasics(
            ShardingSettings settings,
            ShardingStore store,
            Membership membership,
            ControlLoop control,
            Outbound outbound) {
        this.settings = settings;
        this.store = store;
        this.membership = membership;
        this.control = control;
        this.outbound = outbound;
    }

    @Override
    public Member self() {
        Member m = membership.self();
        if (m == null) {
            throw new IllegalStateException("Node not started");
        }
        return m;
    }

    @Override
    public String nodeName() {
        return membership.nodeName();
    }

    @Override
    public String clusterName() {
        return settings.clusterName();
    }

    @Override
    public List<Member> members() {
        return membership.view();
    }

    @Override
    public ShardingStore store() {
        return store;
    }

    @Override
    public void send(Member to, ProtocolMessage msg, boolean outOfBand) {
        outbound.send(to, msg, outOfBand);
    }

    @Override
    public boolean runOnControlLater(Runnable task) {
        return control.offer(task);
    }
}
