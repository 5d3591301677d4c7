package dev.sharding.internal.node;

import dev.sharding.ClusterPartitionedException;
import dev.sharding.Member;
import dev.sharding.ShardingException;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.ask.AskRegistry;
import dev.sharding.internal.entity.BlockedThreads;
import dev.sharding.internal.entity.EntityCell;
import dev.sharding.internal.lease.LeaseKeeper;
import dev.sharding.internal.protocol.Failure;
import dev.sharding.internal.protocol.FailureKind;
import dev.sharding.internal.protocol.GetShardHome;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.region.ControlPlane;
import dev.sharding.internal.region.HostingEvents;
import dev.sharding.internal.region.NodeView;
import dev.sharding.internal.region.RegionHost;
import dev.sharding.internal.region.RegionServices;
import dev.sharding.internal.region.ServingState;
import dev.sharding.internal.transport.Transport;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.MessageTracing;
import dev.sharding.spi.ShardingMetrics;
import dev.sharding.spi.ShardingStore;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The node as its regions see it: the roles of {@link RegionHost} it plays, and the record of them it gives each region
 * ({@link #regionHost()}). Built by {@link NodeRuntime} after every part it names and before the first region, so each
 * of its fields is set from the start.
 */
public final class NodeLinks implements NodeView, ServingState, ControlPlane, HostingEvents {

    private final NodeBasics basics;

    private final ShardingSettings settings;

    private final Transport transport;

    private final MessageCodec codec;

    private final ProtocolCodec protocol;

    private final ShardingStore store;

    private final StoreClock storeClock;

    private final AskRegistry asks;

    private final ExecutorService executor;

    private final ControlLoop control;

    private final Membership membership;

    private final BooleanSupplier running;

    private final boolean serializeLocalMessages;

    private final ShardingMetrics metrics;

    private final MessageTracing tracing;

    private final BlockedThreads blockedThreads;

    private final ServingGate gate;

    private final LeaseKeeper leases;

    private final PeriodicTick tick;

    private final GracefulLeave leave;

    private final CoordinatorDriver coordinator;

    NodeLinks(
            NodeBasics basics,
            ShardingSettings settings,
            Transport transport,
            MessageCodec codec,
            ProtocolCodec protocol,
            ShardingStore store,
            AskRegistry asks,
            ExecutorService executor,
            ControlLoop control,
            Membership membership,
            BooleanSupplier running,
            boolean serializeLocalMessages,
            ShardingMetrics metrics,
            MessageTracing tracing,
            BlockedThreads blockedThreads,
            ServingGate gate,
            LeaseKeeper leases,
            PeriodicTick tick,
            GracefulLeave leave,
            CoordinatorDriver coordinator) {
        this.basics = basics;
        this.settings = settings;
        this.transport = transport;
        this.codec = codec;
        this.protocol = protocol;
        this.store = store;
        this.storeClock = new StoreClock(store);
        this.asks = asks;
        this.executor = executor;
        this.control = control;
        this.membership = membership;
        this.running = running;
        this.serializeLocalMessages = serializeLocalMessages;
        this.metrics = metrics;
        this.tracing = tracing;
        this.blockedThreads = blockedThreads;
        this.gate = gate;
        this.leases = leases;
        this.tick = tick;
        this.leave = leave;
        this.coordinator = coordinator;
    }

    // ---- who the node is and whether it serves -------------------------------------------------------------------

    @Override
    public Member self() {
        return basics.self();
    }

    @Override
    public String nodeName() {
        return basics.nodeName();
    }

    @Override
    public List<Member> members() {
        return basics.members();
    }

    @Override
    public boolean isMember(Member member) {
        return membership.isMember(member);
    }

    @Override
    public void checkRunning() {
        if (!running.getAsBoolean()) {
            throw new ShardingException("Sharding node " + nodeName() + " is not running");
        }
        String partitioned = partitionedReason();
        if (partitioned != null) {
            throw partitionedException(partitioned);
        }
    }

    @Override
    public boolean isRunning() {
        return running.getAsBoolean();
    }

    @Override
    public @Nullable String partitionedReason() {
        // refused for good: it would route messages by another shard function than the cluster's
        return membership.notServingReason(leases.partitioned());
    }

    @Override
    public ClusterPartitionedException partitionedException(String reason) {
        return gate.partitionedException(reason);
    }

    @Override
    public boolean serving() {
        return gate.serving();
    }

    @Override
    public void park(EntityCell cell) {
        gate.park(cell);
    }

    @Override
    public void unparkAll() {
        gate.unparkAll();
    }

    // ---- sending -------------------------------------------------------------------------------------------------

    @Override
    public void send(Member to, ProtocolMessage msg, boolean outOfBand) {
        basics.send(to, msg, outOfBand);
    }

    @Override
    public void sendToCoordinator(ProtocolMessage msg) {
        Member coord = membership.coordinator();
        if (coord != null) {
            basics.send(coord, msg, false);
        }
    }

    @Override
    public void sendFailure(
            Member to, long correlationId, FailureKind kind, String className, @Nullable String message) {
        basics.send(to, new Failure(correlationId, kind, className, message), true);
    }

    @Override
    public void requestShardHome(String typeName, int shardId) {
        Member coord = membership.coordinator();
        if (coord != null && running.getAsBoolean()) {
            basics.send(coord, new GetShardHome(typeName, shardId), false);
        }
    }

    // ---- telling the node ----------------------------------------------------------------------------------------

    @Override
    public void regionChanged() {
        leave.regionChanged();
    }

    @Override
    public void stopServingShard() {
        // the coordinator hears every shard this node hosts now; repeated every retry interval until acknowledged
        if (running.getAsBoolean()) {
            membership.register();
        }
        regionChanged();
    }

    @Override
    public void requestSweep() {
        tick.requestSweep();
    }

    // ---- the control thread --------------------------------------------------------------------------------------

    @Override
    public boolean runOnControlLater(Runnable task) {
        return basics.runOnControlLater(task);
    }

    @Override
    public ScheduledExecutorService control() {
        return control.executor();
    }

    @Override
    public long clockMillis() {
        return tick.clockMillis();
    }

    // ---- parts ---------------------------------------------------------------------------------------------------

    /** The node as its regions see it: the parts they share, and this playing every role. */
    public RegionHost regionHost() {
        return RegionHost.of(
                new RegionServices(
                        settings,
                        transport,
                        codec,
                        protocol,
                        store,
                        asks,
                        executor,
                        metrics,
                        tracing,
                        blockedThreads,
                        serializeLocalMessages),
                this);
    }

    /** Where frames go to other members. */
    public Transport transport() {
        return transport;
    }

    @Override
    public long storeMillis() {
        return storeClock.millis();
    }
}
