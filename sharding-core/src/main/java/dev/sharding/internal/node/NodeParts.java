package dev.sharding.internal.node;

import dev.sharding.EntityType;
import dev.sharding.EntityTypeSettings;
import dev.sharding.Member;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.ask.AskCompletions;
import dev.sharding.internal.ask.AskRegistry;
import dev.sharding.internal.codec.EventCodec;
import dev.sharding.internal.codec.KnownStrings;
import dev.sharding.internal.coordinator.Coordinator;
import dev.sharding.internal.entity.BlockedThreads;
import dev.sharding.internal.entity.EntityExecutors;
import dev.sharding.internal.entity.EntityHandlers;
import dev.sharding.internal.lease.LeaseKeeper;
import dev.sharding.internal.lease.LeaseTimes;
import dev.sharding.internal.protocol.MemberProfile;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.region.LocalRegions;
import dev.sharding.internal.region.Region;
import dev.sharding.internal.region.RegionCommands;
import dev.sharding.internal.transport.Transport;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.MessageTracing;
import dev.sharding.spi.ShardAllocationStrategy;
import dev.sharding.spi.ShardingMetrics;
import dev.sharding.spi.ShardingStore;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every part of one node, built in one pass, each from parts built before it (see {@link NodeRuntime} for what each
 * does). Where a part built earlier must hear of one built later, it listens ({@link LeaseKeeper#listen}); the few
 * things only the runtime itself can do (send, hand a message to the control thread, say whether it runs, report its
 * shards) come in as {@link Runtime}, used once the node has started.
 */
final class NodeParts {

    private static final Logger log = LoggerFactory.getLogger(NodeRuntime.class);

    /**
     * What the parts use of the runtime that assembles them.
     *
     * @param send sends a protocol message, to this node handled locally
     * @param toControl hands a control message from a member to the control thread
     * @param running whether the node runs
     * @param reportShards tells the coordinator every shard this node hosts now
     */
    record Runtime(
            Outbound send,
            BiConsumer<Member, ProtocolMessage> toControl,
            BooleanSupplier running,
            Runnable reportShards) {}

    private final ShardingSettings settings;

    final ProtocolCodec protocol;

    final AskRegistry asks;

    final ExecutorService executor;

    final boolean ownExecutor;

    final ControlLoop control = new ControlLoop();

    /** Reports the node's own threads held too long by one piece of work. */
    final BlockedThreads blockedThreads;

    final LocalRegions regions;

    final Membership membership;

    /** The node as its regions and its lease keeper see it. */
    final NodeLinks links;

    final LeaseKeeper leases;

    final CoordinatorDriver coordinator;

    final ServingGate gate;

    final GracefulLeave leave;

    /** Applies each new view to the node's parts. */
    final ViewChanges views;

    final ControlDispatch dispatch;

    final InboundTraffic inbound;

    final PeriodicTick tick;

    final NodeStatus status;

    final NodeAdmin admin;

    final NodeCounters traffic;

    NodeParts(
            ShardingSettings settings,
            List<EntityType<?>> types,
            ShardAllocationStrategy strategy,
            MessageCodec codec,
            Transport transport,
            ShardingStore store,
            @Nullable ExecutorService executor,
            @Nullable Executor callbackExecutor,
            boolean serializeLocalMessages,
            ShardingMetrics metrics,
            MessageTracing tracing,
            Runtime runtime) {
        this.settings = settings;
        this.regions = new LocalRegions(MemberProfile.of(settings.member()));
        this.protocol = new ProtocolCodec(
                settings.maxPayloadSize(),
                new KnownStrings(types.stream().map(EntityType::name).toList()));
        this.ownExecutor = executor == null;
        this.executor = executor != null ? executor : EntityExecutors.workStealing();
        this.asks = new AskRegistry(AskCompletions.of(this.executor, callbackExecutor));
        this.membership = new Membership(regions, runtime.send());
        this.blockedThreads = new BlockedThreads(settings.blockedThreadThreshold(), metrics, membership::nodeName);
        control.watchWith(blockedThreads);
        NodeBasics basics = new NodeBasics(settings, store, membership, control, runtime.send());
        this.leases = new LeaseKeeper(basics, settings.splitBrain(), LeaseTimes.stableAfterNanos(settings, -1));
        Coordinator coordinatorTables = new Coordinator(
                membership::self,
                membership::nodeName,
                membership::storeId,
                strategy,
                leases,
                settings.rebalance().interval().toNanos(),
                settings.rebalance().stableAfter().toNanos(),
                settings.retryInterval().toNanos(),
                settings.member().minNrOfMembers(),
                System.nanoTime());
        coordinatorTables.onRebalanceRound(metrics::rebalanceRound);
        this.leave = new GracefulLeave(
                settings, membership, regions, control, runtime.send(), leases, coordinatorTables::movesUnderWay);
        this.coordinator = new CoordinatorDriver(
                coordinatorTables, runtime.send(), store, control.executor(), leases, leave::regionChanged);
        this.gate = new ServingGate(
                leases, regions, store, control, membership, runtime.reportShards(), leave::regionChanged);
        // what a lease decides: the gate stops or resumes the entities, the coordinator may allocate
        leases.listen(gate);
        leases.listen(coordinator);
        ClusterStatistics statistics = new ClusterStatistics(
                control, membership, regions, runtime.send(), leave::isLeaving, coordinator::figures);
        AdminClient admin = new AdminClient(membership, runtime.send(), runtime.running());
        this.dispatch = new ControlDispatch(
                membership, regions, coordinator, leases, leave, statistics, admin, runtime.send(), runtime.running());
        this.inbound = new InboundTraffic(
                protocol, codec, regions, asks, runtime.send(), runtime.toControl(), membership::nodeName);
        this.tick =
                new PeriodicTick(settings, regions, leases, asks, membership, leave, coordinator, runtime.running());
        this.links = new NodeLinks(
                basics,
                settings,
                transport,
                codec,
                protocol,
                store,
                asks,
                this.executor,
                control,
                membership,
                runtime.running(),
                serializeLocalMessages,
                metrics,
                tracing,
                blockedThreads,
                gate,
                leases,
                tick,
                leave,
                coordinator);
        this.views = new ViewChanges(
                membership, transport, leases, asks, regions, statistics, coordinator, dispatch::viewInstalled);
        this.status = new NodeStatus(
                settings,
                links,
                membership,
                runtime.running(),
                leave,
                leases,
                gate,
                control,
                coordinator,
                regions,
                asks);
        this.admin = new NodeAdmin(basics::self, membership, regions, admin, statistics, store, settings.askTimeout());
        this.traffic = new NodeCounters(membership, transport);
        DaemonWorker.DaemonHost host = new NodeDaemonHost(store, types, runtime.running(), metrics);
        for (EntityType<?> type : types) {
            EntityType<?> hosted = DaemonWorker.isDaemon(type) ? DaemonWorker.boundTo(type, host) : type;
            addRegion(hosted);
        }
    }

    /** The node as its daemon processes see it: its store, and its event-sourced types. */
    private final class NodeDaemonHost implements DaemonWorker.DaemonHost {

        private final ShardingStore store;

        private final List<EntityType<?>> types;

        private final BooleanSupplier running;

        private final ShardingMetrics metrics;

        NodeDaemonHost(
                ShardingStore store, List<EntityType<?>> types, BooleanSupplier running, ShardingMetrics metrics) {
            this.store = store;
            this.types = types;
            this.running = running;
            this.metrics = metrics;
        }

        @Override
        public ShardingMetrics metrics() {
            return metrics;
        }

        @Override
        public boolean running() {
            return running.getAsBoolean();
        }

        @Override
        public ShardingStore store() {
            return store;
        }

        @Override
        public DaemonWorker.SourceType source(String typeName) {
            for (EntityType<?> t : types) {
                Class<?> events = t.eventType();
                if (t.name().equals(typeName) && events != null) {
                    return new DaemonWorker.SourceType(
                            new EventCodec(t.name(), events, t.eventUpcasters(), settings.maxPayloadSize()),
                            shardsOf(t));
                }
            }
            throw new IllegalArgumentException("This node runs no event-sourced entity type " + typeName
                    + " (EntityType.withEvents): a projection reads one that the node runs");
        }
    }

    /** A type's number of shards: the setting's, the type's own, or the node's default. */
    private int shardsOf(EntityType<?> type) {
        EntityTypeSettings ts = settings.entity(type.name());
        return ts.numberOfShards() > 0
                ? ts.numberOfShards()
                : type.numberOfShards() > 0 ? type.numberOfShards() : settings.numberOfShards();
    }

    private <T> void addRegion(EntityType<T> type) {
        if (regions.get(type.name()) != null) {
            throw new IllegalArgumentException("Entity type " + type.name() + " is registered twice");
        }
        EntityTypeSettings ts = settings.entity(type.name());
        int shards = shardsOf(type);
        // a type with a role is hosted only where the node has that role; elsewhere its region routes, as a proxy
        boolean proxyOnly = ts.proxyOnly() || !settings.member().hasRole(ts.role());
        if (!ts.proxyOnly() && proxyOnly) {
            log.info(
                    "Entity type {} is hosted only on nodes with role {}, which this node lacks (roles {}): its region"
                            + " routes messages only",
                    type.name(),
                    ts.role(),
                    settings.member().roles());
        }
        Region<T> region =
                new Region<>(links.regionHost(), type, EntityHandlers.of(type.entityClass()), shards, proxyOnly);
        regions.add(region, new RegionCommands(region, links));
    }
}
