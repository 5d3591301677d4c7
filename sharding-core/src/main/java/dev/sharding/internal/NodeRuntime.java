package dev.sharding.internal;

import dev.sharding.EntityType;
import dev.sharding.Member;
import dev.sharding.MessageRejectedException;
import dev.sharding.ShardingException;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.codec.KnownStrings;
import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.protocol.AdminReply;
import dev.sharding.internal.protocol.AdminRequest;
import dev.sharding.internal.protocol.GetShardHome;
import dev.sharding.internal.protocol.GracefulShutdownRequest;
import dev.sharding.internal.protocol.CoordinatorMessage;
import dev.sharding.internal.protocol.EntityEnvelope;
import dev.sharding.internal.protocol.EntityTraffic;
import dev.sharding.internal.protocol.Failure;
import dev.sharding.internal.protocol.FailureKind;
import dev.sharding.internal.protocol.GetRegionStats;
import dev.sharding.internal.protocol.GetShardStates;
import dev.sharding.internal.protocol.HostShard;
import dev.sharding.internal.protocol.LeaseMessage;
import dev.sharding.internal.protocol.NodeMessage;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.protocol.Recipients;
import dev.sharding.internal.protocol.RegionInfo;
import dev.sharding.internal.protocol.RegionMessage;
import dev.sharding.internal.protocol.RegionStats;
import dev.sharding.internal.protocol.RegionStopped;
import dev.sharding.internal.protocol.RegionStoppedAck;
import dev.sharding.internal.protocol.Register;
import dev.sharding.internal.protocol.RegisterAck;
import dev.sharding.internal.protocol.RegisterRefused;
import dev.sharding.internal.protocol.Reply;
import dev.sharding.internal.protocol.Sender;
import dev.sharding.internal.protocol.ShardStates;
import dev.sharding.internal.transport.Transport;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.ShardAllocationStrategy;
import dev.sharding.spi.ShardingStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node of the sharding cluster: its transport, its regions (one per entity type), its coordinator, and the two
 * kinds of threads everything runs on.
 *
 * <ul>
 * <li>The <b>control thread</b>, one per node, owns all protocol state: views, registration, shard homes, the
 * coordinator's table. Transport callbacks never block; they hand control messages to this thread.</li>
 * <li>The <b>entity executor</b>, a work-stealing pool shared by all entities of the node, drains mailboxes.</li>
 * </ul>
 *
 * <p>Entity messages and replies do not pass through the control thread: a transport thread decodes them and puts
 * them straight into a mailbox, forwards them, or completes the waiting ask.
 */
public final class NodeRuntime implements Transport.Listener {

    private static final Logger log = LoggerFactory.getLogger(NodeRuntime.class);

    private static final long SWEEP_MILLIS = AskRegistry.TICK_NANOS / 1_000_000;

    private final ShardingSettings settings;

    private final Transport transport;

    private final MessageCodec codec;

    private final ProtocolCodec protocol;

    private final AskRegistry asks = new AskRegistry();

    private final ExecutorService executor;

    private final boolean ownExecutor;

    private final ScheduledExecutorService control;

    private final Map<String, Region<?>> regions = new LinkedHashMap<>();

    private final Map<String, RegionCommands> regionCommands = new HashMap<>();

    private final Inbound inbound = new Inbound();

    private final ControlRecipients recipients = new ControlRecipients();

    private final Coordinator coordinator;

    private final LeaseKeeper leases;

    /** The id of this node's store, empty when it is not shared between processes. */
    private volatile String storeId = "";

    /** Why the coordinator refused this node's registration for good, or {@code null}. */
    private volatile @Nullable String registrationRefused;

    private final AtomicLong droppedControl = new AtomicLong();

    private final ShardingStore store;

    private final Map<Long, StatsRequest> statsRequests = new HashMap<>();

    private final AtomicLong statsIds = new AtomicLong();

    private final AtomicLong malformedFrames = new AtomicLong();

    private volatile @Nullable Member self;

    private volatile String nodeName = "";

    private volatile List<Member> view = List.of();

    private volatile @Nullable Member coordinatorMember;

    private volatile boolean registered;

    private volatile boolean running;

    private volatile boolean stopped;

    private volatile boolean leaving;

    private final CompletableFuture<Void> drained = new CompletableFuture<>();

    private final Map<Long, CompletableFuture<AdminReply>> adminRequests = new ConcurrentHashMap<>();

    private final AtomicLong adminIds = new AtomicLong();

    private final Set<Member> stoppedAcksAwaited = ConcurrentHashMap.newKeySet();

    private final CompletableFuture<Void> stoppedAcked = new CompletableFuture<>();

    private long lastRetryNanos;

    /** A coarse clock for entity activity, advanced by the control thread's tick. */
    private volatile long clockMillis = System.currentTimeMillis();

    private long lastSweepMillis = System.currentTimeMillis();

    private volatile boolean sweepRequested;

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
    public NodeRuntime(ShardingSettings settings, List<EntityType<?>> types, ShardAllocationStrategy strategy,
            MessageCodec codec, Transport transport, ShardingStore store, @Nullable ExecutorService executor) {
        this.settings = settings.validate();
        this.transport = transport;
        this.codec = codec;
        this.store = store;
        this.protocol = new ProtocolCodec(settings.maxPayloadSize(),
                new KnownStrings(types.stream().map(EntityType::name).toList()));
        this.ownExecutor = executor == null;
        this.executor = executor != null ? executor : newEntityExecutor();
        ScheduledThreadPoolExecutor ctl = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sharding-control");
            t.setDaemon(true);
            return t;
        });
        ctl.setRemoveOnCancelPolicy(true);
        this.control = ctl;
        this.leases = new LeaseKeeper(this, settings.splitBrain(), stableAfterNanos(settings, -1));
        this.coordinator = new Coordinator(this, strategy, leases);
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
        if (regions.containsKey(type.name())) {
            throw new IllegalArgumentException("Entity type " + type.name() + " is registered twice");
        }
        ShardingSettings.EntityTypeSettings ts = settings.entity(type.name());
        int shards = ts.numberOfShards() > 0 ? ts.numberOfShards()
                : type.numberOfShards() > 0 ? type.numberOfShards() : settings.numberOfShards();
        Region<T> region = new Region<>(this, type, EntityHandlers.of(type.entityClass()), shards, ts.proxyOnly());
        regions.put(type.name(), region);
        regionCommands.put(type.name(), new RegionCommands(region, this));
    }

    private static ExecutorService newEntityExecutor() {
        int parallelism = Math.max(2, Runtime.getRuntime().availableProcessors());
        return new ForkJoinPool(parallelism, pool -> {
            ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
            t.setName("sharding-entity-" + t.getPoolIndex());
            t.setDaemon(true);
            return t;
        }, (t, e) -> log.error("Uncaught failure on {}", t.getName(), e), true);
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
            storeId = store.storeId().get(settings.askTimeout().toMillis() * 2, TimeUnit.MILLISECONDS).orElse("");
        } catch (Exception e) {
            log.warn("Cannot read the id of the store; the coordinator cannot check that this node shares its store: "
                    + "{}", e.toString());
        }
        try {
            transport.start(this);
        } catch (Exception e) {
            running = false;
            shutdownThreads();
            throw e;
        }
        Member me = transport.self();
        self = me;
        nodeName = me.name();
        long detection = transport.failureDetectionNanos();
        if (detection > 0) {
            long stable = stableAfterNanos(settings, detection);
            control.execute(() -> leases.stableAfter(stable));
        }
        control.scheduleWithFixedDelay(this::tick, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
        log.info("Sharding node {} joined cluster {} with regions {}", nodeName, settings.clusterName(),
                regions.keySet());
    }

    /**
     * Leaves the cluster gracefully: asks the coordinator to hand off every shard hosted here (their messages go to
     * the new homes, none is lost), waits for that at most {@code handoff-timeout} while still serving, then stops
     * taking messages, stops whatever entity is left (waiting at most {@code timeout}), fails what still waits, makes
     * sure every member got its last messages, and closes the transport.
     *
     * @param timeout how long to wait for entities left after the handoffs to stop
     */
    public void stop(Duration timeout) {
        synchronized (this) {
            if (!running || leaving) {
                return;
            }
            leaving = true;
        }
        log.info("Sharding node {} is leaving: handing off its shards", nodeName);
        long start = System.nanoTime();
        try {
            control.execute(() -> {
                requestGracefulShutdown();
                regionChanged();
            });
            drained.get(settings.handoffTimeout().toMillis(), TimeUnit.MILLISECONDS);
            log.info("Sharding node {} handed off its shards in {} ms", nodeName,
                    (System.nanoTime() - start) / 1_000_000);
        } catch (TimeoutException e) {
            log.warn("Sharding node {} still hosts shards after handoff-timeout {}; stopping them", nodeName,
                    settings.handoffTimeout());
        } catch (Exception e) {
            log.warn("Graceful handoff of {} failed", nodeName, e);
        }
        synchronized (this) {
            running = false;
            stopped = true;
        }
        ShardingException reason = new ShardingException("Sharding node " + nodeName + " stopped");
        runOnControl(() -> regions.values().forEach(r -> r.dropBuffers(reason)));
        List<CompletableFuture<Void>> stops = new ArrayList<>();
        regions.values().forEach(r -> stops.add(r.stopAll()));
        try {
            CompletableFuture.allOf(stops.toArray(CompletableFuture[]::new))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            log.warn("Entities of {} did not stop within {}", nodeName, timeout);
        } catch (Exception e) {
            log.warn("Stopping entities of {} failed", nodeName, e);
        }
        // entities started since the last flush stay remembered across the restart of the whole cluster
        List<CompletableFuture<Void>> flushes = new java.util.concurrent.CopyOnWriteArrayList<>();
        runOnControl(() -> regions.values().forEach(r -> flushes.add(r.flushRemembered())));
        try {
            CompletableFuture.allOf(flushes.toArray(CompletableFuture[]::new))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.warn("Remembered entities of {} not all stored before stopping: {}", nodeName, e.toString());
        }
        asks.failAll(reason);
        runOnControl(leases::releaseStoreLease);
        sayGoodbye();
        transport.close();
        shutdownThreads();
        log.info("Sharding node {} left cluster {}", nodeName, settings.clusterName());
    }

    /** Sends RegionStopped to every other member and waits (briefly) until each confirmed: nothing sent is lost. */
    private void sayGoodbye() {
        Member me = self;
        List<Member> others = view.stream().filter(m -> !m.equals(me)).toList();
        if (others.isEmpty()) {
            return;
        }
        stoppedAcksAwaited.addAll(others);
        for (Member m : others) {
            transport.send(m, protocol.encode(new RegionStopped()), false);
        }
        try {
            stoppedAcked.get(settings.retryInterval().multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.debug("Not every member confirmed the goodbye of {}: {}", nodeName, stoppedAcksAwaited);
        }
    }

    private void requestGracefulShutdown() {
        Member coord = coordinatorMember;
        if (coord != null) {
            send(coord, new GracefulShutdownRequest(), false);
        }
    }

    /** A region's hosting changed. Control thread. */
    void regionChanged() {
        if (leaving && regions.values().stream().allMatch(r -> r.hostedShards() == 0)) {
            drained.complete(null);
        }
    }

    /**
     * Whether the node is handing off its shards to leave.
     *
     * @return true from the start of a graceful stop
     */
    public boolean isLeaving() {
        return leaving;
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
        asks.failAll(new ShardingException("Sharding node " + nodeName + " crashed"));
        shutdownThreads();
    }

    private void shutdownThreads() {
        control.shutdownNow();
        if (ownExecutor) {
            executor.shutdown();
        }
    }

    private void runOnControl(Runnable task) {
        try {
            control.submit(task).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            log.debug("Control task failed during stop", e);
        }
    }

    void checkRunning() {
        if (!running) {
            throw new ShardingException("Sharding node " + nodeName + " is not running");
        }
        String partitioned = leases.partitioned();
        if (partitioned != null) {
            throw partitionedException(partitioned);
        }
    }

    dev.sharding.ClusterPartitionedException partitionedException(String reason) {
        return new dev.sharding.ClusterPartitionedException("Sharding node " + nodeName + " does not serve: "
                + reason);
    }

    /** Whether this node may deliver to its entities now (its lease lasts). Any thread; on every message. */
    boolean serving() {
        return leases.serving() && !verifying;
    }

    /** Set while the shards are checked against the store after a lapse of the lease: nothing is delivered. */
    private volatile boolean verifying;

    /** Entities whose message waits for the node to serve again. */
    private final java.util.concurrent.ConcurrentLinkedQueue<EntityCell> parked =
            new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** An entity waits for the node to serve again. Entity threads. */
    void park(EntityCell cell) {
        parked.add(cell);
        if (serving() && parked.remove(cell)) {
            cell.unpark(); // the node served again meanwhile
        }
    }

    /** Runs every waiting entity again: the node serves again, or shards were dropped. Any thread. */
    void unparkAll() {
        EntityCell cell;
        while ((cell = parked.poll()) != null) {
            cell.unpark();
        }
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
        try {
            return control.submit(() -> leases.viewStable(System.nanoTime())).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            return false;
        }
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
        return registrationRefused;
    }

    /**
     * Control messages dropped because they came from a member that may not send them.
     *
     * @return the count since start
     */
    public long droppedControlMessages() {
        return droppedControl.get();
    }

    /** The node lost its side or its lease: every shard stops now, and the coordinator hears it hosts none. */
    void stopServing(String reason) {
        RuntimeException failure = partitionedException(reason);
        for (Region<?> r : regions.values()) {
            r.dropAll(failure);
        }
        reportShards();
        regionChanged();
    }

    /**
     * The node holds a lease again. The shards it kept through the lapse serve again only if none was allocated
     * elsewhere meanwhile: their epochs are checked against the store first, and a stale one is dropped. Control
     * thread.
     */
    void resumeServing() {
        List<Region<?>> hosting = regions.values().stream().filter(r -> r.hostedShards() > 0).toList();
        if (hosting.isEmpty()) {
            reportShards();
            return;
        }
        verifying = true;
        List<CompletableFuture<?>> checks = new ArrayList<>();
        for (Region<?> r : hosting) {
            CompletableFuture<Map<Integer, Long>> epochs;
            try {
                epochs = store.currentEpochs(r.typeName());
            } catch (RuntimeException e) {
                epochs = CompletableFuture.failedFuture(e);
            }
            checks.add(epochs.handle((current, failure) -> {
                runOnControlLater(() -> {
                    if (failure != null) {
                        log.warn("Cannot check the shards of {} on {} against the store; dropping them: {}",
                                r.typeName(), nodeName, failure.toString());
                        r.dropHosted();
                    } else {
                        r.dropStale(current);
                    }
                });
                return null;
            }));
        }
        CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new)).whenComplete((v, t) ->
                runOnControlLater(() -> {
                    verifying = false;
                    unparkAll();
                    reportShards();
                }));
    }

    /**
     * Tells the coordinator every shard this node hosts now, after it dropped some on its own; repeated every retry
     * interval until acknowledged.
     */
    private void reportShards() {
        registered = false;
        Member coord = coordinatorMember;
        if (coord != null && running) {
            send(coord, new Register(regionInfos(), storeId), false);
        }
    }

    /** The coordinator may allocate again (a member got its first lease, or the store lease came back). */
    void coordinatorMayRun() {
        coordinator.retryWaitingNow();
    }

    /**
     * Runs a task on the control thread later, unless the node has stopped it. Any thread.
     *
     * @return false when the task was not taken (the node stopped)
     */
    boolean runOnControlLater(Runnable task) {
        try {
            control.execute(task);
            return true;
        } catch (java.util.concurrent.RejectedExecutionException stopping) {
            return false;
        }
    }

    /** A region stopped a shard on its own (fenced by the store): the coordinator hears what this node hosts now. */
    void stopServingShard() {
        reportShards();
        regionChanged();
    }

    // ---- accessors ---------------------------------------------------------------------------------------------

    ShardingSettings settings() {
        return settings;
    }

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

    Transport transport() {
        return transport;
    }

    MessageCodec codec() {
        return codec;
    }

    ShardingStore store() {
        return store;
    }

    /** The id of this node's store, empty when it is not shared. */
    String storeId() {
        return storeId;
    }

    ProtocolCodec protocol() {
        return protocol;
    }

    AskRegistry asks() {
        return asks;
    }

    ExecutorService executor() {
        return executor;
    }

    ScheduledExecutorService control() {
        return control;
    }

    /**
     * This member.
     *
     * @return the member
     * @throws IllegalStateException before start
     */
    public Member self() {
        Member m = self;
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
        return nodeName;
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
     * Whether this node registered its regions with the current coordinator and has been granted a lease to serve.
     *
     * @return true once the coordinator acknowledged and granted
     */
    public boolean isRegistered() {
        return registered && running && registrationRefused == null && leases.hadLease();
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
     * The members of the current view, oldest first.
     *
     * @return the members
     */
    public List<Member> members() {
        return view;
    }

    /**
     * The member whose coordinator is active.
     *
     * @return the coordinator, or {@code null} before the first view
     */
    public @Nullable Member coordinator() {
        return coordinatorMember;
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
     * The regions, by type name.
     *
     * @return the regions
     */
    public Map<String, Region<?>> regions() {
        return regions;
    }

    /**
     * Asks waiting for a remote reply.
     *
     * @return the count
     */
    public int waitingAsks() {
        return asks.waiting();
    }

    // ---- transport callbacks (transport threads; never block) ----------------------------------------------------

    @Override
    public void onFrame(Member from, byte[] buffer, int offset, int length) {
        ProtocolMessage msg;
        try {
            msg = protocol.decode(buffer, offset, length);
        } catch (MalformedFrameException | IllegalArgumentException e) {
            long n = malformedFrames.incrementAndGet();
            if (n == 1 || Long.bitCount(n) == 1) {
                log.warn("Dropped a malformed frame of {} bytes from {} ({} so far): {}", length, from, n,
                        e.getMessage());
            }
            return;
        }
        dispatch(from, msg, buffer, offset, length);
    }

    private void dispatch(Member from, ProtocolMessage msg, byte[] buffer, int offset, int length) {
        if (msg instanceof EntityTraffic traffic) {
            traffic.dispatchTo(inbound, from, buffer, offset, length);
        } else {
            try {
                control.execute(() -> handleControl(from, msg));
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                // node stopping
            }
        }
    }

    /** Entity traffic, on the transport's thread: into a mailbox, forwarded, or completing the waiting ask. */
    private final class Inbound implements EntityTraffic.Handler {

        @Override
        public void onEnvelope(Member from, EntityEnvelope env, byte[] frame, int offset, int length) {
            Region<?> region = regions.get(env.typeName());
            if (region == null) {
                log.warn("Rejected a message from {} for unknown entity type {}", from, env.typeName());
                if (env.replyTo() != null) {
                    sendFailure(env.replyTo(), env.correlationId(), FailureKind.REJECTED,
                            MessageRejectedException.class.getName(),
                            "Unknown entity type " + env.typeName() + " on node " + nodeName);
                }
                return;
            }
            region.receive(env, frame, offset, length);
        }

        @Override
        public void onReply(Member from, Reply reply) {
            PendingAsk<?> ask = asks.remove(reply.correlationId());
            if (ask == null) {
                return; // timed out or failed already
            }
            byte[] payload = reply.payload();
            Object value;
            if (payload == null) {
                value = null;
            } else {
                try {
                    value = codec.decode(payload, 0, payload.length);
                } catch (MessageRejectedException e) {
                    log.warn("Rejected the reply of [{}/{}]: {}", ask.typeName, ask.entityId, e.getMessage());
                    executor.execute(() -> ask.fail(e));
                    return;
                }
            }
            executor.execute(() -> ask.reply(value));
        }

        @Override
        public void onFailure(Member from, Failure failure) {
            PendingAsk<?> ask = asks.remove(failure.correlationId());
            if (ask != null) {
                executor.execute(() -> ask.fail(failure.kind(), failure.className(), failure.message()));
            }
        }
    }

    @Override
    public void onView(List<Member> members) {
        try {
            control.execute(() -> applyView(members));
        } catch (java.util.concurrent.RejectedExecutionException stopping) {
            // node stopping
        }
    }

    // ---- control thread ----------------------------------------------------------------------------------------

    private void applyView(List<Member> members) {
        try {
            if (self == null) {
                // the first view can arrive while the transport is still connecting
                Member me = transport.self();
                self = me;
                nodeName = me.name();
            }
            applyViewChange(members);
        } catch (RuntimeException e) {
            log.error("Applying view {} on {} failed", members, nodeName, e);
        }
    }

    private void applyViewChange(List<Member> members) {
        List<Member> old = view;
        Set<Member> gone = new HashSet<>(old);
        gone.removeAll(members);
        Set<Member> joined = new HashSet<>(members);
        old.forEach(joined::remove);
        view = members;
        Member newCoordinator = members.isEmpty() ? null : members.get(0);
        log.info("View on {}: {} (left: {}, joined: {})", nodeName, members, gone, joined);
        leases.onView(members, System.nanoTime());
        asks.failSentTo(gone);
        for (Region<?> r : regions.values()) {
            r.membersGone(gone);
        }
        for (StatsRequest s : statsRequests.values()) {
            s.expected.removeAll(gone);
            s.completeIfDone();
        }
        coordinator.onView(members, gone, joined);
        Member previous = coordinatorMember;
        coordinatorMember = newCoordinator;
        if (newCoordinator != null && !newCoordinator.equals(previous)) {
            registered = false;
            send(newCoordinator, new Register(regionInfos(), storeId), false);
        }
    }

    private List<RegionInfo> regionInfos() {
        List<RegionInfo> infos = new ArrayList<>(regions.size());
        for (Region<?> r : regions.values()) {
            infos.add(r.info());
        }
        return infos;
    }

    /**
     * Whether a control message may come from this sender (see {@link Sender}): commands to regions only from the
     * coordinator of the current view, everything else only from members of the current view, a lease request from
     * anyone. Others are counted and dropped: a stale coordinator of a former view, or a process that is not a member,
     * changes nothing.
     */
    private boolean acceptable(Member from, ProtocolMessage msg) {
        if (from.equals(self)) {
            return true;
        }
        return switch (msg.sender()) {
            case COORDINATOR -> from.equals(coordinatorMember);
            case MEMBER -> view.contains(from);
            case ANYONE, ANY_NODE -> true;
        };
    }

    private void handleControl(Member from, ProtocolMessage msg) {
        if (!running && !(msg instanceof NodeMessage m && m.answeredWhileStopping())) {
            return; // a stopping node still answers queries, so a new coordinator need not wait for it to leave
        }
        if (!acceptable(from, msg)) {
            long n = droppedControl.incrementAndGet();
            if (n == 1 || Long.bitCount(n) == 1) {
                log.info("Dropped {} from {}: only {} may send it now ({} dropped so far)",
                        msg.getClass().getSimpleName(), from, msg.sender() == Sender.COORDINATOR
                                ? "the coordinator " + coordinatorMember : "members of the view", n);
            }
            return;
        }
        try {
            msg.routeTo(recipients, from);
        } catch (RuntimeException e) {
            log.error("Handling {} from {} failed", msg, from, e);
        }
    }

    /** Control messages, on the control thread, each to the recipient of its family. */
    private final class ControlRecipients implements Recipients, NodeMessage.Handler {

        @Override
        public void coordinator(Member from, CoordinatorMessage m) {
            m.dispatchTo(coordinator, from);
        }

        @Override
        public void region(Member from, RegionMessage m) {
            RegionCommands r = regionCommands.get(m.typeName());
            if (r != null) {
                m.dispatchTo(r, from);
            } else if (m instanceof HostShard h) {
                log.error("Coordinator {} asked {} to host shard {} of unknown type {}", from, nodeName,
                        h.shardId(), h.typeName());
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
            if (!registered) {
                log.info("Node {} registered with coordinator {}", nodeName, from);
            }
            registered = true;
        }

        @Override
        public void onRegisterRefused(Member from, RegisterRefused m) {
            if (registrationRefused == null) {
                log.error("Coordinator {} refused node {}: {}", from, nodeName, m.reason());
            }
            registrationRefused = m.reason();
        }

        @Override
        public void onGetShardStates(Member from, GetShardStates m) {
            send(from, new ShardStates(regionInfos()), false);
        }

        @Override
        public void onRegionStopped(Member from, RegionStopped m) {
            leases.memberLeaving(from);
            send(from, new RegionStoppedAck(), false);
        }

        @Override
        public void onRegionStoppedAck(Member from, RegionStoppedAck m) {
            stoppedAcksAwaited.remove(from);
            if (stoppedAcksAwaited.isEmpty()) {
                stoppedAcked.complete(null);
            }
        }

        @Override
        public void onAdminReply(Member from, AdminReply m) {
            CompletableFuture<AdminReply> f = adminRequests.remove(m.requestId());
            if (f != null) {
                f.complete(m);
            }
        }

        @Override
        public void onGetRegionStats(Member from, GetRegionStats m) {
            send(from, new RegionStats(m.requestId(), leaving,
                    coordinator.isActive() ? coordinator.handoffsInProgress() : List.of(), localStats()), true);
        }

        @Override
        public void onRegionStats(Member from, RegionStats m) {
            StatsRequest s = statsRequests.get(m.requestId());
            if (s != null) {
                s.results.put(from, m);
                s.expected.remove(from);
                s.completeIfDone();
            }
        }
    }

    long clockMillis() {
        return clockMillis;
    }

    /** Asks for a passivation sweep at the next tick (a region went over its limit of live entities). */
    void requestSweep() {
        sweepRequested = true;
    }

    /** How many entities a tick looks at for idleness, at most (plus the rest of the last shard it started). */
    private static final int IDLE_PASS_BUDGET = 20_000;

    /**
     * How often a pass looks for idle entities: a quarter of the shortest idle timeout, at least 50 ms, so an entity
     * stops between one and 1.25 idle timeouts after its last message.
     */
    private long sweepIntervalMillis() {
        long shortest = Long.MAX_VALUE;
        for (Region<?> r : regions.values()) {
            Duration idle = settings.idleTimeout(r.typeName());
            if (!idle.isZero()) {
                shortest = Math.min(shortest, idle.toMillis());
            }
        }
        return shortest == Long.MAX_VALUE ? 1000 : Math.max(50, shortest / 4);
    }

    private void tick() {
        try {
            long millis = System.currentTimeMillis();
            clockMillis = millis;
            if (running) {
                leases.tick(System.nanoTime());
            }
            if (running) {
                boolean newPass = millis - lastSweepMillis >= sweepIntervalMillis();
                if (newPass) {
                    lastSweepMillis = millis;
                    for (Region<?> r : regions.values()) {
                        r.startIdlePass(millis);
                    }
                }
                if (newPass || sweepRequested) {
                    sweepRequested = false;
                    for (Region<?> r : regions.values()) {
                        r.passivateOverLimit();
                    }
                }
                int budget = IDLE_PASS_BUDGET;
                for (Region<?> r : regions.values()) {
                    budget -= r.continueIdlePass(Math.max(0, budget));
                }
            }
            asks.sweep();
            long now = System.nanoTime();
            if (now - lastRetryNanos < settings.retryInterval().toNanos()) {
                return;
            }
            lastRetryNanos = now;
            Member coord = coordinatorMember;
            if (!running || coord == null) {
                return;
            }
            if (!registered) {
                send(coord, new Register(regionInfos(), storeId), false);
            }
            if (leaving && !drained.isDone()) {
                requestGracefulShutdown();
            }
            for (Region<?> r : regions.values()) {
                r.retryRequests();
                r.checkHandOffs();
                r.flushRemembered();
            }
            coordinator.tick();
        } catch (RuntimeException e) {
            log.error("Periodic task of {} failed", nodeName, e);
        }
    }

    /** Asks the coordinator where a shard lives. Control thread. */
    void requestShardHome(String typeName, int shardId) {
        Member coord = coordinatorMember;
        if (coord != null && running) {
            send(coord, new GetShardHome(typeName, shardId), false);
        }
    }

    /**
     * Sends a protocol message; to this node it is handled locally without the transport.
     */
    void send(Member to, ProtocolMessage msg, boolean outOfBand) {
        if (to.equals(self)) {
            if (msg instanceof EntityTraffic traffic) {
                traffic.dispatchTo(inbound, to, new byte[0], 0, 0);
            } else {
                try {
                    control.execute(() -> handleControl(to, msg));
                } catch (java.util.concurrent.RejectedExecutionException stopping) {
                    // node stopping
                }
            }
            return;
        }
        transport.send(to, protocol.encode(msg), outOfBand);
    }

    /** Sends to the current coordinator, if there is one. */
    void sendToCoordinator(ProtocolMessage msg) {
        Member coord = coordinatorMember;
        if (coord != null) {
            send(coord, msg, false);
        }
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
    public CompletableFuture<AdminReply> admin(@Nullable String typeName, int shardId, @Nullable String targetNode,
            Duration timeout) {
        long id = adminIds.incrementAndGet();
        CompletableFuture<AdminReply> f = new CompletableFuture<>();
        adminRequests.put(id, f);
        Member coord = coordinatorMember;
        if (coord == null || !running) {
            adminRequests.remove(id);
            f.complete(new AdminReply(id, false, "No coordinator is known yet"));
            return f;
        }
        send(coord, new AdminRequest(id, typeName, shardId, targetNode), false);
        return f.completeOnTimeout(new AdminReply(id, false, "The coordinator " + coord + " did not answer within "
                + timeout), timeout.toMillis(), TimeUnit.MILLISECONDS).whenComplete((r, t) -> adminRequests.remove(id));
    }

    /**
     * Handoffs in progress, as "type/shard", if this node hosts the active coordinator.
     *
     * @return the handoffs
     */
    public List<String> handoffsInProgress() {
        try {
            return control.submit(coordinator::handoffsInProgress).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            return List.of();
        }
    }

    void sendFailure(Member to, long correlationId, FailureKind kind, String className, @Nullable String message) {
        send(to, new Failure(correlationId, kind, className, message), true);
    }

    // ---- inspection --------------------------------------------------------------------------------------------

    private List<RegionStats.TypeStats> localStats() {
        List<RegionStats.TypeStats> list = new ArrayList<>();
        for (Region<?> r : regions.values()) {
            list.add(new RegionStats.TypeStats(r.typeName(), r.proxyOnly(), r.passivations(), r.entityCounts()));
        }
        return list;
    }

    /**
     * Asks every member for its regions' shards and entity counts.
     *
     * @param timeout how long to wait for answers
     * @return the answers by member; members that did not answer in time are missing
     */
    public CompletableFuture<Map<Member, RegionStats>> collectStats(Duration timeout) {
        CompletableFuture<Map<Member, RegionStats>> result = new CompletableFuture<>();
        try {
            control.execute(() -> {
                long id = statsIds.incrementAndGet();
                StatsRequest request = new StatsRequest(id, new HashSet<>(view), result);
                statsRequests.put(id, request);
                for (Member m : view) {
                    send(m, new GetRegionStats(id), true);
                }
                request.completeIfDone();
                control.schedule(request::complete, timeout.toMillis(), TimeUnit.MILLISECONDS);
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            result.completeExceptionally(new ShardingException("Sharding node " + nodeName + " is not running"));
        }
        return result;
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

    private final class StatsRequest {

        final long id;

        final Set<Member> expected;

        final Map<Member, RegionStats> results = new ConcurrentHashMap<>();

        final CompletableFuture<Map<Member, RegionStats>> future;

        StatsRequest(long id, Set<Member> expected, CompletableFuture<Map<Member, RegionStats>> future) {
            this.id = id;
            this.expected = expected;
            this.future = future;
        }

        void completeIfDone() {
            if (expected.isEmpty()) {
                complete();
            }
        }

        void complete() {
            statsRequests.remove(id);
            future.complete(Map.copyOf(results));
        }
    }
}
