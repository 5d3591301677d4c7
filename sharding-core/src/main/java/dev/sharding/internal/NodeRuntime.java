package dev.sharding.internal;

import dev.sharding.EntityType;
import dev.sharding.Member;
import dev.sharding.ShardingException;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.codec.KnownStrings;
import dev.sharding.internal.protocol.AdminReply;
import dev.sharding.internal.protocol.EntityTraffic;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.protocol.RegionStats;
import dev.sharding.internal.transport.Transport;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.ShardAllocationStrategy;
import dev.sharding.spi.ShardingStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
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
 * registration), {@link LeaseKeeper} (split-brain decisions and leases), {@link ServingGate} (whether entities may
 * run), {@link GracefulLeave}, {@link PeriodicTick}, {@link ClusterStatistics} and {@link AdminClient}. It runs the
 * node's lifecycle (start, graceful stop, crash) and answers the queries {@code ShardingNode} exposes.
 */
public final class NodeRuntime implements Transport.Listener {

    private static final Logger log = LoggerFactory.getLogger(NodeRuntime.class);

    private final ShardingSettings settings;

    private final Transport transport;

    private final MessageCodec codec;

    private final ProtocolCodec protocol;

    private final ShardingStore store;

    private final AskRegistry asks = new AskRegistry();

    private final ExecutorService executor;

    private final boolean ownExecutor;

    private final ControlLoop control = new ControlLoop();

    private final LocalRegions regions = new LocalRegions();

    private final Membership membership;

    /** The node as its regions and its lease keeper see it. */
    private final NodeLinks links;

    private final LeaseKeeper leases;

    private final CoordinatorDriver coordinator;

    private final ServingGate gate;

    private final GracefulLeave leave;

    private final ClusterStatistics statistics;

    private final AdminClient admin;

    private final ControlDispatch dispatch;

    private final InboundTraffic inbound;

    private final PeriodicTick tick;

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
        this.settings = settings.validate();
        this.transport = transport;
        this.codec = codec;
        this.store = store;
        this.protocol = new ProtocolCodec(
                settings.maxPayloadSize(),
                new KnownStrings(types.stream().map(EntityType::name).toList()));
        this.ownExecutor = executor == null;
        this.executor = executor != null ? executor : newEntityExecutor();
        this.membership = new Membership(regions, this::send);
        this.links = new NodeLinks(
                settings,
                transport,
                codec,
                protocol,
                store,
                asks,
                this.executor,
                control,
                membership,
                this::send,
                () -> running);
        this.leases = new LeaseKeeper(links, settings.splitBrain(), stableAfterNanos(settings, -1));
        this.coordinator = new CoordinatorDriver(
                new Coordinator(
                        membership::self,
                        membership::nodeName,
                        membership::storeId,
                        strategy,
                        leases,
                        settings.rebalanceInterval().toNanos(),
                        settings.retryInterval().toNanos(),
                        System.nanoTime()),
                this::send,
                store,
                control.executor(),
                leases);
        this.gate =
                new ServingGate(leases, regions, store, control, membership, this::reportShards, links::regionChanged);
        this.leave = new GracefulLeave(settings, membership, regions, control, this::send, leases);
        this.statistics = new ClusterStatistics(
                control,
                membership,
                regions,
                this::send,
                leave::isLeaving,
                () -> coordinator.isActive() ? coordinator.handoffsInProgress() : List.of());
        this.admin = new AdminClient(membership, this::send, () -> running);
        this.dispatch = new ControlDispatch(
                membership, regions, coordinator, leases, leave, statistics, admin, this::send, () -> running);
        this.inbound = new InboundTraffic(
                protocol, codec, regions, asks, this.executor, this::send, this::toControl, membership::nodeName);
        this.tick = new PeriodicTick(settings, regions, leases, asks, membership, leave, coordinator, () -> running);
        links.wire(gate, leases, tick, leave, coordinator);
        for (EntityType<?> type : types) {
            addRegion(type);
        }
    }

    /**
     * How long a view must last to be stable: as set, or the failure detector's time to notice a hung or cut-off
     * member (FD_ALL3's timeout plus VERIFY_SUSPECT2's, 3.5 s with the default stack) plus a second for the view to
     * be installed on both sides.
     */
    static long stableAfterNanos(ShardingSettings settings, long failureDetectionNanos) {
        Duration set = settings.splitBrain().stableAfter();
        if (set != null) {
            return set.toNanos();
        }
        long detection = failureDetectionNanos > 0 ? failureDetectionNanos : 3_500_000_000L;
        return detection + 1_000_000_000L;
    }

    private <T> void addRegion(EntityType<T> type) {
        if (regions.get(type.name()) != null) {
            throw new IllegalArgumentException("Entity type " + type.name() + " is registered twice");
        }
        ShardingSettings.EntityTypeSettings ts = settings.entity(type.name());
        int shards = ts.numberOfShards() > 0
                ? ts.numberOfShards()
                : type.numberOfShards() > 0 ? type.numberOfShards() : settings.numberOfShards();
        Region<T> region = new Region<>(links, type, EntityHandlers.of(type.entityClass()), shards, ts.proxyOnly());
        regions.add(region, new RegionCommands(region, links));
    }

    private static ExecutorService newEntityExecutor() {
        int parallelism = Math.max(2, Runtime.getRuntime().availableProcessors());
        return new ForkJoinPool(
                parallelism,
                pool -> {
                    ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
                    t.setName("sharding-entity-" + t.getPoolIndex());
                    t.setDaemon(true);
                    return t;
                },
                (t, e) -> log.error("Uncaught failure on {}", t.getName(), e),
                true);
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
            long stable = stableAfterNanos(settings, detection);
            control.offer(() -> leases.stableAfter(stable));
        }
        control.every(PeriodicTick.PERIOD_MILLIS, tick);
        log.info(
                "Sharding node {} joined cluster {} with regions {}",
                nodeName(),
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
        ShardingException reason = new ShardingException("Sharding node " + nodeName() + " stopped");
        leave.stopEntities(timeout, reason);
        asks.failAll(reason);
        control.runAndWait(leases::releaseStoreLease);
        leave.sayGoodbye();
        transport.close();
        shutdownThreads();
        log.info("Sharding node {} left cluster {}", nodeName(), settings.clusterName());
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
        asks.failAll(new ShardingException("Sharding node " + nodeName() + " crashed"));
        shutdownThreads();
    }

    private void shutdownThreads() {
        control.shutdown();
        if (ownExecutor) {
            executor.shutdown();
        }
    }

    // ---- transport callbacks (transport threads; never block) ----------------------------------------------------

    @Override
    public void onFrame(Member from, byte[] buffer, int offset, int length) {
        inbound.onFrame(from, buffer, offset, length);
    }

    @Override
    public void onView(List<Member> members) {
        control.offer(() -> applyView(members));
    }

    private void toControl(Member from, ProtocolMessage msg) {
        control.offer(() -> dispatch.handle(from, msg));
    }

    // ---- control thread ----------------------------------------------------------------------------------------

    private void applyView(List<Member> members) {
        try {
            if (membership.self() == null) {
                membership.joined(transport.self()); // the first view can arrive while the transport connects
            }
            Membership.ViewChange change = membership.update(members);
            log.info("View on {}: {} (left: {}, joined: {})", nodeName(), members, change.gone(), change.joined());
            leases.onView(members, System.nanoTime());
            asks.failSentTo(change.gone());
            for (Region<?> r : regions.all()) {
                r.membersGone(change.gone());
            }
            statistics.membersGone(change.gone());
            coordinator.onView(members, change.gone(), change.joined());
            if (change.coordinatorChanged()) {
                membership.register();
            }
        } catch (RuntimeException e) {
            log.error("Applying view {} on {} failed", members, nodeName(), e);
        }
    }

    /** The coordinator hears every shard this node hosts now, after it dropped some on its own. */
    private void reportShards() {
        if (running) {
            membership.register();
        }
    }

    // ---- sending -----------------------------------------------------------------------------------------------

    /** Sends a protocol message; to this node it is handled locally without the transport. */
    void send(Member to, ProtocolMessage msg, boolean outOfBand) {
        if (to.equals(membership.self())) {
            if (msg instanceof EntityTraffic traffic) {
                traffic.dispatchTo(inbound, to, new byte[0], 0, 0);
            } else {
                toControl(to, msg);
            }
            return;
        }
        transport.send(to, protocol.encode(msg), outOfBand);
    }

    /** Whether this node may deliver to its entities now (its lease lasts). Any thread. */
    boolean serving() {
        return gate.serving();
    }

    /** The control thread, for tests that run a step there. */
    ScheduledExecutorService control() {
        return control.executor();
    }

    // ---- queries -----------------------------------------------------------------------------------------------

    /**
     * The name of the cluster this node joins.
     *
     * @return the cluster name
     */
    public String clusterName() {
        return settings.clusterName();
    }

    /**
     * The default ask timeout, also used for operator requests.
     *
     * @return the timeout
     */
    public Duration settingsAskTimeout() {
        return settings.askTimeout();
    }

    /**
     * This member.
     *
     * @return the member
     * @throws IllegalStateException before start
     */
    public Member self() {
        Member m = membership.self();
        if (m == null) {
            throw new IllegalStateException("Node not started");
        }
        return m;
    }

    /**
     * This node's name.
     *
     * @return the name, empty before start
     */
    public String nodeName() {
        return membership.nodeName();
    }

    /**
     * Whether the node takes messages.
     *
     * @return true between start and stop
     */
    public boolean isRunning() {
        return running;
    }

    /**
     * Whether the node is handing off its shards to leave.
     *
     * @return true from the start of a graceful stop
     */
    public boolean isLeaving() {
        return leave.isLeaving();
    }

    /**
     * Whether this node registered its regions with the current coordinator and has been granted a lease to serve.
     *
     * @return true once the coordinator acknowledged and granted
     */
    public boolean isRegistered() {
        return membership.registered() && running && membership.registrationRefused() == null && leases.hadLease();
    }

    /**
     * Whether this node holds a lease to serve its shards now.
     *
     * @return true while it may deliver to its entities
     */
    public boolean isServing() {
        return running && serving();
    }

    /**
     * Whether the current view has lasted long enough ({@code split-brain.stable-after}) to be the only reference of
     * a split-brain decision: until then, a member lost now counts against the views before it too.
     *
     * @return true once the membership is stable
     */
    public boolean isViewStable() {
        return control.read(() -> leases.viewStable(System.nanoTime()), false);
    }

    /**
     * Why this node refuses messages now: it is on the losing side of a partition, or lost its lease.
     *
     * @return the reason, or {@code null} when it serves
     */
    public @Nullable String partitionedReason() {
        return leases.partitioned();
    }

    /**
     * Why the coordinator refused this node for good (another store, another number of shards), or {@code null}.
     *
     * @return the reason
     */
    public @Nullable String registrationRefused() {
        return membership.registrationRefused();
    }

    /**
     * Control messages dropped because they came from a member that may not send them.
     *
     * @return the count since start
     */
    public long droppedControlMessages() {
        return membership.droppedControl();
    }

    /**
     * Whether this node hosts the active coordinator.
     *
     * @return true on the coordinator
     */
    public boolean isCoordinator() {
        return coordinator.isActive();
    }

    /**
     * Whether this node's coordinator is active and has rebuilt its table.
     *
     * @return true on the coordinator once ready
     */
    public boolean isCoordinatorReady() {
        return coordinator.isReady();
    }

    /**
     * The members of the current view, oldest first.
     *
     * @return the members
     */
    public List<Member> members() {
        return membership.view();
    }

    /**
     * The member whose coordinator is active.
     *
     * @return the coordinator, or {@code null} before the first view
     */
    public @Nullable Member coordinator() {
        return membership.coordinator();
    }

    /**
     * The regions, by type name.
     *
     * @return the regions, unmodifiable
     */
    public Map<String, Region<?>> regions() {
        return regions.byType();
    }

    /**
     * Asks waiting for a remote reply.
     *
     * @return the count
     */
    public int waitingAsks() {
        return asks.waiting();
    }

    /**
     * Handoffs in progress, as "type/shard", if this node hosts the active coordinator.
     *
     * @return the handoffs
     */
    public List<String> handoffsInProgress() {
        return control.read(coordinator::handoffsInProgress, List.of());
    }

    /**
     * Asks the active coordinator to run a rebalance round now ({@code typeName} null) or to hand off one shard.
     *
     * @param typeName the type of the shard, or {@code null} for a rebalance
     * @param shardId the shard
     * @param targetNode the node to move it to, or {@code null}
     * @param timeout how long to wait for the answer
     * @return the coordinator's answer
     */
    public CompletableFuture<AdminReply> admin(
            @Nullable String typeName, int shardId, @Nullable String targetNode, Duration timeout) {
        return admin.request(typeName, shardId, targetNode, timeout);
    }

    /**
     * Asks every member for its regions' shards and entity counts.
     *
     * @param timeout how long to wait for answers
     * @return the answers by member; members that did not answer in time are missing
     */
    public CompletableFuture<Map<Member, RegionStats>> collectStats(Duration timeout) {
        return statistics.collect(timeout.toMillis());
    }

    /**
     * The live entity ids of this node's shards of one type.
     *
     * @param typeName the type
     * @return entity ids per hosted shard, or {@code null} for an unknown type
     */
    public @Nullable Map<Integer, List<String>> localEntities(String typeName) {
        Region<?> r = regions.get(typeName);
        return r == null ? null : r.entityIds();
    }
}
