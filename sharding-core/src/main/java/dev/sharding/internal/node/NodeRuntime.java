package dev.sharding.internal.node;

import dev.sharding.EntityType;
import dev.sharding.EntityTypeSettings;
import dev.sharding.Member;
import dev.sharding.ShardingException;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.ask.AskCompletions;
import dev.sharding.internal.ask.AskRegistry;
import dev.sharding.internal.codec.KnownStrings;
import dev.sharding.internal.coordinator.Coordinator;
import dev.sharding.internal.entity.BlockedThreads;
import dev.sharding.internal.entity.EntityExecutors;
import dev.sharding.internal.entity.EntityHandlers;
import dev.sharding.internal.lease.LeaseKeeper;
import dev.sharding.internal.lease.LeaseTimes;
import dev.sharding.internal.protocol.EntityTraffic;
import dev.sharding.internal.protocol.MemberProfile;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.region.LocalRegions;
import dev.sharding.internal.region.Region;
import dev.sharding.internal.region.RegionCommands;
import dev.sharding.internal.region.RegionHost;
import dev.sharding.internal.transport.Transport;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.MessageTracing;
import dev.sharding.spi.ShardAllocationStrategy;
import dev.sharding.spi.ShardingMetrics;
import dev.sharding.spi.ShardingStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node of the sharding cluster: its transport, its regions (one per entity type), its coordinator, and the two
 * kinds of threads everything runs on.
 *
 * <ul>
 * <li>The <b>control thread</b> ({@link ControlLoop}), one per node, owns all protocol state: views, registration,
 * shard homes, the coordinator's table. Transport callbacks never block; they hand control messages to this
 * thread, where {@link ControlDispatch} checks the sender and hands each to its recipient.</li>
 * <li>The <b>entity executor</b>, a work-stealing pool shared by all entities of the node, drains mailboxes.</li>
 * </ul>
 *
 * <p>Entity messages and replies do not pass through the control thread: {@link InboundTraffic} decodes them on a
 * transport thread and puts them straight into a mailbox, forwards them, or completes the waiting ask.
 *
 * <p>This class builds and wires the node's parts, each with one job: {@link Membership} (the view and
 * registration), {@link ViewChanges} (a new view, applied part by part), {@link LeaseKeeper} (split-brain decisions
 * and leases), {@link ServingGate} (whether entities may run), {@link CoordinatorDriver} (the coordinator's decisions,
 * carried out), {@link GracefulLeave}, {@link PeriodicTick}, {@link ClusterStatistics} and {@link AdminClient}. The
 * regions and the lease keeper see the node only through {@link RegionHost} and {@link LeaseHost} ({@link NodeLinks});
 * {@code ShardingNode}'s queries are answered by {@link NodeStatus}. This class runs the node's lifecycle (start,
 * graceful stop, crash) and sends protocol messages.
 */
public final class NodeRuntime implements Transport.Listener {

    private static final Logger log = LoggerFactory.getLogger(NodeRuntime.class);

    private final ShardingSettings settings;

    private final Transport transport;

    private final ProtocolCodec protocol;

    private final ShardingStore store;

    private final AskRegistry asks;

    private final ExecutorService executor;

    private final boolean ownExecutor;

    private final ControlLoop control = new ControlLoop();

    /** Reports the node's own threads held too long by one piece of work. */
    private final BlockedThreads blockedThreads;

    private final LocalRegions regions;

    private final Membership membership;

    /** The node as its regions and its lease keeper see it. */
    private final NodeLinks links;

    private final LeaseKeeper leases;

    private final CoordinatorDriver coordinator;

    private final ServingGate gate;

    private final GracefulLeave leave;

    /** Applies each new view to the node's parts. */
    private final ViewChanges views;

    private final ControlDispatch dispatch;

    private final InboundTraffic inbound;

    private final PeriodicTick tick;

    private final NodeStatus status;

    private volatile boolean running;

    private volatile boolean stopped;

    /**
     * Creates a node; {@link #start()} joins the cluster.
     *
     * @param settings the settings
     * @param types the entity types it runs
     * @param strategy the allocation strategy of its coordinator
     * @param codec the message codec
     * @param transport the transport
     * @param store where entity state, shard epochs and remembered entities are kept
     * @param executor the entity executor, or {@code null} for a work-stealing pool sized to the processors
     */
    public NodeRuntime(
            ShardingSettings settings,
            List<EntityType<?>> types,
            ShardAllocationStrategy strategy,
            MessageCodec codec,
            Transport transport,
            ShardingStore store,
            @Nullable ExecutorService executor) {
        this(
                settings,
                types,
                strategy,
                codec,
                transport,
                store,
                executor,
                null,
                false,
                ShardingMetrics.NONE,
                MessageTracing.NONE);
    }

    /**
     * Creates a node; {@link #start()} joins the cluster.
     *
     * @param settings the settings
     * @param types the entity types it runs
     * @param strategy the allocation strategy of its coordinator
     * @param codec the message codec
     * @param transport the transport
     * @param store where entity state, shard epochs and remembered entities are kept
     * @param executor the entity executor, or {@code null} for a work-stealing pool sized to the processors
     * @param callbackExecutor where the stages callers chain on an ask's future run, or {@code null} for the entity
     *     executor
     * @param serializeLocalMessages whether messages and replies delivered within the node go through the codec and
     *     back, as between nodes (a test mode)
     * @param metrics where the node's counts and times go
     * @param tracing how the node traces messages
     */
    public NodeRuntime(
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
            MessageTracing tracing) {
        this.settings = settings.validate();
        this.regions = new LocalRegions(MemberProfile.of(settings.member()));
        this.transport = transport;
        this.store = store;
        this.protocol = new ProtocolCodec(
                settings.maxPayloadSize(),
                new KnownStrings(types.stream().map(EntityType::name).toList()));
        this.ownExecutor = executor == null;
        this.executor = executor != null ? executor : EntityExecutors.workStealing();
        this.asks = new AskRegistry(AskCompletions.of(this.executor, callbackExecutor));
        this.membership = new Membership(regions, this::send);
        this.blockedThreads = new BlockedThreads(settings.blockedThreadThreshold(), metrics, membership::nodeName);
        control.watchWith(blockedThreads);
        NodeBasics basics = new NodeBasics(settings, store, membership, control, this::send);
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
                settings, membership, regions, control, this::send, leases, coordinatorTables::movesUnderWay);
        this.coordinator = new CoordinatorDriver(
                coordinatorTables, this::send, store, control.executor(), leases, leave::regionChanged);
        this.gate =
                new ServingGate(leases, regions, store, control, membership, this::reportShards, leave::regionChanged);
        // what a lease decides: the gate stops or resumes the entities, the coordinator may allocate
        leases.listen(gate);
        leases.listen(coordinator);
        ClusterStatistics statistics = new ClusterStatistics(
                control,
                membership,
                regions,
                this::send,
                leave::isLeaving,
                () -> coordinator.isActive() ? coordinator.handoffsInProgress() : List.of(),
                () -> coordinator.isActive() ? coordinator.recentRebalances() : List.of());
        AdminClient admin = new AdminClient(membership, this::send, () -> running);
        this.dispatch = new ControlDispatch(
                membership, regions, coordinator, leases, leave, statistics, admin, this::send, () -> running);
        this.inbound =
                new InboundTraffic(protocol, codec, regions, asks, this::send, this::toControl, membership::nodeName);
        this.tick = new PeriodicTick(settings, regions, leases, asks, membership, leave, coordinator, () -> running);
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
                () -> running,
                serializeLocalMessages,
                metrics,
                tracing,
                blockedThreads,
                gate,
                leases,
                tick,
                leave,
                coordinator);
        this.views = new ViewChanges(membership, transport, leases, asks, regions, statistics, coordinator);
        this.status = new NodeStatus(
                settings,
                links,
                membership,
                () -> running,
                leave,
                leases,
                gate,
                control,
                coordinator,
                regions,
                asks,
                admin,
                statistics);
        for (EntityType<?> type : types) {
            addRegion(type);
        }
    }

    private <T> void addRegion(EntityType<T> type) {
        if (regions.get(type.name()) != null) {
            throw new IllegalArgumentException("Entity type " + type.name() + " is registered twice");
        }
        EntityTypeSettings ts = settings.entity(type.name());
        int shards = ts.numberOfShards() > 0
                ? ts.numberOfShards()
                : type.numberOfShards() > 0 ? type.numberOfShards() : settings.numberOfShards();
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

    // ---- lifecycle ---------------------------------------------------------------------------------------------

    /**
     * Joins the cluster and starts the regions.
     *
     * @throws Exception if the cluster cannot be joined
     */
    public synchronized void start() throws Exception {
        if (running || stopped) {
            throw new IllegalStateException("Node already started");
        }
        running = true;
        try {
            // before the first view: the first Register carries it
            membership.storeId(store.storeId()
                    .get(settings.askTimeout().toMillis() * 2, TimeUnit.MILLISECONDS)
                    .orElse(""));
        } catch (Exception e) {
            log.warn(
                    "Cannot read the id of the store; the coordinator cannot check that this node shares its store: "
                            + "{}",
                    e.toString());
        }
        blockedThreads.start();
        try {
            transport.start(this);
        } catch (Exception e) {
            running = false;
            shutdownThreads();
            throw e;
        }
        membership.joined(transport.self());
        long detection = transport.failureDetectionNanos();
        if (detection > 0) {
            long stable = LeaseTimes.stableAfterNanos(settings, detection);
            control.offer(() -> leases.stableAfter(stable));
        }
        control.every(PeriodicTick.PERIOD_MILLIS, tick);
        log.info(
                "Sharding node {} joined cluster {} with regions {}",
                membership.nodeName(),
                settings.clusterName(),
                regions.typeNames());
    }

    /**
     * Leaves the cluster gracefully ({@link GracefulLeave}): hands off every shard hosted here while still serving,
     * at most {@code handoff-timeout}; then stops taking messages, stops whatever entity is left (waiting at most
     * {@code timeout}), fails what still waits, makes sure every member got its last messages, and closes the
     * transport.
     *
     * @param timeout how long to wait for entities left after the handoffs to stop
     */
    public void stop(Duration timeout) {
        synchronized (this) {
            if (!running || leave.isLeaving()) {
                return;
            }
            leave.begin();
        }
        leave.handOffShards();
        synchronized (this) {
            running = false;
            stopped = true;
        }
        ShardingException reason = new ShardingException("Sharding node " + membership.nodeName() + " stopped");
        leave.stopEntities(timeout, reason);
        asks.failAll(reason);
        control.runAndWait(leases::releaseStoreLease);
        leave.sayGoodbye();
        transport.close();
        shutdownThreads();
        log.info("Sharding node {} left cluster {}", membership.nodeName(), settings.clusterName());
    }

    /**
     * Stops as a crash would: no goodbye, no entity stopped, nothing more sent. For tests of failure handling.
     */
    public void crash() {
        synchronized (this) {
            running = false;
            stopped = true;
        }
        transport.crash();
        asks.failAll(new ShardingException("Sharding node " + membership.nodeName() + " crashed"));
        shutdownThreads();
    }

    private void shutdownThreads() {
        blockedThreads.stop();
        control.shutdown();
        if (ownExecutor) {
            executor.shutdown();
        }
    }

    // ---- transport callbacks (transport threads; never block) ----------------------------------------------------

    @Override
    public void onFrame(Member from, byte[] buffer, int offset, int length) {
        BlockedThreads.Watched reader = blockedThreads.transportThread();
        long outer = BlockedThreads.enter(reader);
        try {
            inbound.onFrame(from, buffer, offset, length);
        } finally {
            BlockedThreads.exit(reader, outer);
        }
    }

    @Override
    public void onView(List<Member> members) {
        control.offer(() -> views.apply(members));
    }

    private void toControl(Member from, ProtocolMessage msg) {
        control.offer(() -> dispatch.handle(from, msg));
    }

    // ---- control thread ----------------------------------------------------------------------------------------

    /** The coordinator hears every shard this node hosts now, after it dropped some on its own. */
    private void reportShards() {
        if (running) {
            membership.register();
        }
    }

    // ---- sending -----------------------------------------------------------------------------------------------

    /**
     * Sends a protocol message; to this node it is handled locally without the transport. Entity traffic is data
     * to the transport, the rest control, which has a reserve toward a member that is behind.
     *
     * @return false when the transport refused it because the member is behind
     */
    boolean send(Member to, ProtocolMessage msg, boolean outOfBand) {
        if (to.equals(membership.self())) {
            if (msg instanceof EntityTraffic traffic) {
                traffic.dispatchTo(inbound, to, new byte[0], 0, 0);
            } else {
                toControl(to, msg);
            }
            return true;
        }
        byte[] frame = protocol.encode(msg);
        return msg instanceof EntityTraffic
                ? transport.send(to, frame, outOfBand)
                : transport.sendControl(to, frame, outOfBand);
    }

    /** Whether this node may deliver to its entities now (its lease lasts). Any thread. */
    boolean serving() {
        return gate.serving();
    }

    /** How views are applied, for tests that make a step fail. */
    ViewChanges views() {
        return views;
    }

    /** The control thread, for tests that run a step there. */
    public ScheduledExecutorService control() {
        return control.executor();
    }

    // ---- queries -----------------------------------------------------------------------------------------------

    /**
     * What this node can tell about itself and its cluster.
     *
     * @return the node's status
     */
    public NodeStatus status() {
        return status;
    }

    /**
     * Whether this node registered its regions with the current coordinator and has been granted a lease to serve.
     *
     * @return true once the coordinator acknowledged and granted
     */
    public boolean isRegistered() {
        return status.isRegistered();
    }

    /** Whether this node hosts the active coordinator ({@link NodeStatus#isCoordinator}). */
    public boolean isCoordinator() {
        return status.isCoordinator();
    }

    /** Why the coordinator refused this node for good ({@link NodeStatus#registrationRefused}). */
    @Nullable
    public String registrationRefused() {
        return status.registrationRefused();
    }

    /** Control messages dropped from members that may not send them ({@link NodeStatus#droppedControlMessages}). */
    public long droppedControlMessages() {
        return status.droppedControlMessages();
    }

    /**
     * The regions, by type name.
     *
     * @return the regions, unmodifiable
     */
    public Map<String, Region<?>> regions() {
        return regions.byType();
    }
}
