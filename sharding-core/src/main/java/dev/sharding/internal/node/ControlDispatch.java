package dev.sharding.internal.node;

import dev.sharding.Member;
import dev.sharding.internal.lease.LeaseKeeper;
import dev.sharding.internal.protocol.AdminReply;
import dev.sharding.internal.protocol.CoordinatorMessage;
import dev.sharding.internal.protocol.GetRegionStats;
import dev.sharding.internal.protocol.GetShardStates;
import dev.sharding.internal.protocol.HostShard;
import dev.sharding.internal.protocol.LeaseMessage;
import dev.sharding.internal.protocol.NodeMessage;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.protocol.Recipients;
import dev.sharding.internal.protocol.RegionMessage;
import dev.sharding.internal.protocol.RegionStats;
import dev.sharding.internal.protocol.RegionStopped;
import dev.sharding.internal.protocol.RegionStoppedAck;
import dev.sharding.internal.protocol.RegisterAck;
import dev.sharding.internal.protocol.RegisterRefused;
import dev.sharding.internal.protocol.ShardStates;
import dev.sharding.internal.region.LocalRegions;
import dev.sharding.internal.region.RegionCommands;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Control messages on the control thread: each is checked against who may send it ({@link Membership#accepts}),
 * then handed to the recipient of its family: the coordinator, the region of its type, the lease keeper, or the part
 * of this node that handles it. A stopping node still answers queries and the goodbye exchange, so that a new
 * coordinator need not wait for it to leave.
 */
final class ControlDispatch implements Recipients, NodeMessage.Handler {

    private static final Logger log = LoggerFactory.getLogger(ControlDispatch.class);

    private final Membership membership;

    private final LocalRegions regions;

    private final CoordinatorDriver coordinator;

    private final LeaseKeeper leases;

    private final GracefulLeave leave;

    private final ClusterStatistics statistics;

    private final AdminClient admin;

    private final Outbound out;

    private final BooleanSupplier running;

    /** A new coordinator's first queries, come before the view that makes it one. */
    private final EarlyCoordinatorMessages early;

    ControlDispatch(
            Membership membership,
            LocalRegions regions,
            CoordinatorDriver coordinator,
            LeaseKeeper leases,
            GracefulLeave leave,
            ClusterStatistics statistics,
            AdminClient admin,
            Outbound out,
            BooleanSupplier running) {
        this.membership = membership;
        this.regions = regions;
        this.coordinator = coordinator;
        this.leases = leases;
        this.leave = leave;
        this.statistics = statistics;
        this.admin = admin;
        this.out = out;
        this.running = running;
        this.early = new EarlyCoordinatorMessages(membership);
    }

    /**
     * A view was installed: a new coordinator's queries that came before it are handled now. Control thread, after
     * every part of the node applied the view.
     */
    void viewInstalled() {
        early.viewInstalled(membership.coordinator(), System.nanoTime(), this::handle);
    }

    /** Handles one control message. Control thread. */
    void handle(Member from, ProtocolMessage msg) {
        if (!running.getAsBoolean() && !(msg instanceof NodeMessage m && m.answeredWhileStopping())) {
            return;
        }
        if (early.hold(from, msg, System.nanoTime()) || !membership.accepts(from, msg)) {
            return;
        }
        try {
            msg.routeTo(this, from);
        } catch (RuntimeException e) {
            log.error("Handling {} from {} failed", msg, from, e);
        }
    }

    @Override
    public void coordinator(Member from, CoordinatorMessage m) {
        m.dispatchTo(coordinator, from);
    }

    @Override
    public void region(Member from, RegionMessage m) {
        RegionCommands r = regions.commands(m.typeName());
        if (r != null) {
            m.dispatchTo(r, from);
        } else if (m instanceof HostShard h) {
            log.error(
                    "Coordinator {} asked {} to host shard {} of unknown type {}",
                    from,
                    membership.nodeName(),
                    h.shardId(),
                    h.typeName());
        }
    }

    @Override
    public void lease(Member from, LeaseMessage m) {
        m.dispatchTo(leases, from);
    }

    @Override
    public void node(Member from, NodeMessage m) {
        m.dispatchTo(this, from);
    }

    @Override
    public void onRegisterAck(Member from, RegisterAck m) {
        membership.onRegisterAck(from, m);
    }

    @Override
    public void onRegisterRefused(Member from, RegisterRefused m) {
        membership.onRegisterRefused(from, m);
        leases.refusedForGood();
    }

    @Override
    public void onGetShardStates(Member from, GetShardStates m) {
        out.send(from, new ShardStates(regions.infos(), regions.profile()), false);
    }

    @Override
    public void onRegionStopped(Member from, RegionStopped m) {
        leave.onRegionStopped(from, m);
    }

    @Override
    public void onRegionStoppedAck(Member from, RegionStoppedAck m) {
        leave.onRegionStoppedAck(from, m);
    }

    @Override
    public void onAdminReply(Member from, AdminReply m) {
        admin.onAdminReply(from, m);
    }

    @Override
    public void onGetRegionStats(Member from, GetRegionStats m) {
        statistics.onGetRegionStats(from, m);
    }

    @Override
    public void onRegionStats(Member from, RegionStats m) {
        statistics.onRegionStats(from, m);
    }
}
