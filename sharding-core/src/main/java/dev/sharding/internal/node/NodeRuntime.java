package dev.sharding.internal.node;

import dev.sharding.ClusterAdmin;
import dev.sharding.EntityType;
import dev.sharding.Member;
import dev.sharding.NodeTraffic;
import dev.sharding.ShardingException;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.entity.BlockedThreads;
import dev.sharding.internal.lease.LeaseKeeper;
import dev.sharding.internal.lease.LeaseTimes;
import dev.sharding.internal.protocol.EntityTraffic;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.region.Region;
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
 * <p>The node's parts, each with one job, are built in one pass by {@link NodeParts}: {@link Membership} (the view and
 * registration), {@link ViewChanges} (a new view, applied part by part), {@link LeaseKeeper} (split-brain decisions
 * and leases), {@link ServingGate} (whether entities may run), {@link CoordinatorDriver} (the coordinator's decisions,
 * carried out), {@link GracefulLeave}, {@link PeriodicTick}, {@link ClusterStatistics} and {@link AdminClient}. The
 * regions see the node only through {@link RegionHost} (played by {@link NodeLinks}), the lease keeper through
 * {@link dev.sharding.internal.lease.LeaseHost} ({@link NodeBasics}); {@code ShardingNode}'s queries are answered by
 * {@link NodeStatus}. This class runs the node's lifecycle (start, graceful stop, crash) and sends protocol messages.
 */
public final class NodeRuntime implements Transport.Listener {

    private static final Logger log = LoggerFactory.getLogger(NodeRuntime.class);

    private final ShardingSettings settings;

    private final Transport transport;

    private final ShardingStore store;

    /** Every part of the node, built in one pass. */
    private final NodeParts parts;

    private volatile boolean running;

    private volatile boolean stopped;

    /** Set by {@link #crash()}: from then on nothing more is handled, as nothing would be in a killed process. */
    private volatile boolean crashed;

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
        this.transport = transport;
        this.store = store;
        this.parts = new NodeParts(
                this.settings,
                types,
                strategy,
                codec,
                transport,
                store,
                executor,
                callbackExecutor,
                serializeLocalMessages,
                metrics,
                tracing,
                new NodeParts.Runtime(this::send, this::toControl, () -> running, this::reportShards));
    }

    // ---- lifecycle ---------------------------------------------------------------------------------------------

    /**
     * Joins the cluster and starts the regions.
     *
     * @throws ShardingException if the cluster cannot be joined
     */
    public synchronized void start() {
        if (running || stopped) {
            throw new IllegalStateException("Node already started");
        }
        running = true;
        try {
            // before the first view: the first Register carries it
            parts.membership.storeId(store.storeId()
                    .get(settings.askTimeout().toMillis() * 2, TimeUnit.MILLISECONDS)
                    .orElse(""));
        } catch (Exception e) {
            log.warn(
                    "Cannot read the id of the store; the coordinator cannot check that this node shares its store: "
                            + "{}",
                    e.toString());
        }
        parts.blockedThreads.start();
        try {
            transport.start(this);
        } catch (Exception e) {
            running = false;
            shutdownThreads();
            throw e instanceof ShardingException se
                    ? se
                    : new ShardingException("Cannot join cluster " + settings.clusterName() + ": " + e.getMessage(), e);
        }
        parts.membership.joined(transport.self());
        long detection = transport.failureDetectionNanos();
        if (detection > 0) {
            long stable = LeaseTimes.stableAfterNanos(settings, detection);
            parts.control.offer(() -> parts.leases.stableAfter(stable));
        }
        parts.tick.start(parts.control);
        log.info(
                "Sharding node {} joined cluster {} with regions {}",
                parts.membership.nodeName(),
                settings.clusterName(),
                parts.regions.typeNames());
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
            if (!running || parts.leave.isLeaving()) {
                return;
            }
            parts.leave.begin();
        }
        parts.leave.handOffShards();
        synchronized (this) {
            running = false;
            stopped = true;
        }
        ShardingException reason = new ShardingException("Sharding node " + parts.membership.nodeName() + " stopped");
        parts.leave.stopEntities(timeout, reason);
        parts.asks.failAll(reason);
        parts.control.runAndWait(parts.leases::releaseStoreLease);
        parts.leave.sayGoodbye();
        transport.close();
        shutdownThreads();
        log.info("Sharding node {} left cluster {}", parts.membership.nodeName(), settings.clusterName());
    }

    /**
     * Stops as a crash would: no goodbye, no entity stopped, nothing more sent. For tests of failure handling.
     */
    public void crash() {
        synchronized (this) {
            running = false;
            stopped = true;
            crashed = true;
        }
        transport.crash();
        parts.asks.failAll(new ShardingException("Sharding node " + parts.membership.nodeName() + " crashed"));
        shutdownThreads();
    }

    private void shutdownThreads() {
        parts.blockedThreads.stop();
        parts.control.shutdown();
        if (parts.ownExecutor) {
            parts.executor.shutdown();
        }
    }

    // ---- transport callbacks (transport threads; never block) ----------------------------------------------------

    @Override
    public void onFrame(Member from, byte[] buffer, int offset, int length) {
        BlockedThreads.Watched reader = parts.blockedThreads.transportThread();
        long outer = BlockedThreads.enter(reader);
        try {
            parts.inbound.onFrame(from, buffer, offset, length);
        } finally {
            BlockedThreads.exit(reader, outer);
        }
    }

    @Override
    public void onView(List<Member> members) {
        if (crashed) {
            // the view of itself alone the transport installs as it crashes: a killed process would not see it
            log.debug("Crashed node {} ignores view {}", parts.membership.nodeName(), members);
            return;
        }
        parts.control.offer(() -> {
            parts.views.apply(members);
            parts.tick.viewChanged();
        });
    }

    private void toControl(Member from, ProtocolMessage msg) {
        parts.control.offer(() -> parts.dispatch.handle(from, msg));
    }

    // ---- control thread ----------------------------------------------------------------------------------------

    /** The coordinator hears every shard this node hosts now, after it dropped some on its own. */
    private void reportShards() {
        if (running) {
            parts.membership.register();
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
        if (to.equals(parts.membership.self())) {
            if (msg instanceof EntityTraffic traffic) {
                traffic.dispatchTo(parts.inbound, to, new byte[0], 0, 0);
            } else {
                toControl(to, msg);
            }
            return true;
        }
        byte[] frame = parts.protocol.encode(msg);
        return msg instanceof EntityTraffic
                ? transport.send(to, frame, outOfBand)
                : transport.sendControl(to, frame, outOfBand);
    }

    /** Whether this node may deliver to its entities now (its lease lasts). Any thread. */
    boolean serving() {
        return parts.gate.serving();
    }

    /** How views are applied, for tests that make a step fail. */
    ViewChanges views() {
        return parts.views;
    }

    /** The control thread's periodic work. For tests of this package. */
    PeriodicTick tick() {
        return parts.tick;
    }

    /** The control thread, for tests that run a step there. */
    public ScheduledExecutorService control() {
        return parts.control.executor();
    }

    // ---- queries -----------------------------------------------------------------------------------------------

    /**
     * What this node can tell about itself and its cluster.
     *
     * @return the node's status
     */
    public NodeStatus status() {
        return parts.status;
    }

    /**
     * Whether this node registered its regions with the current coordinator and has been granted a lease to serve.
     *
     * @return true once the coordinator acknowledged and granted
     */
    public boolean isRegistered() {
        return parts.status.isRegistered();
    }

    /** Whether this node hosts the active coordinator ({@link NodeStatus#isCoordinator}). */
    public boolean isCoordinator() {
        return parts.status.isCoordinator();
    }

    /** Why the coordinator refused this node for good ({@link NodeStatus#registrationRefused}). */
    @Nullable
    public String registrationRefused() {
        return parts.status.registrationRefused();
    }

    /**
     * What an operator asks of the cluster through this node.
     *
     * @return the requests
     */
    public ClusterAdmin admin() {
        return parts.admin;
    }

    /**
     * This node's counts of traffic held back or dropped.
     *
     * @return the counts
     */
    public NodeTraffic traffic() {
        return parts.traffic;
    }

    /**
     * The regions, by type name.
     *
     * @return the regions, unmodifiable
     */
    public Map<String, Region<?>> regions() {
        return parts.regions.byType();
    }
}
