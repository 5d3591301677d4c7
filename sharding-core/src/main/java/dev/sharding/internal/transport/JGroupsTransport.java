package dev.sharding.internal.transport;

import dev.sharding.Member;
import dev.sharding.ShardingException;
import dev.sharding.ShardingSettings;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.View;
import org.jgroups.util.UUID;
import org.jgroups.util.Util;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport on one JGroups channel. Frames are {@link BytesMessage}s (no JGroups marshalling of our objects);
 * the channel's per-sender FIFO delivery is what keeps per-sender order between nodes.
 *
 * <p>This class starts and stops the channel ({@link StackFactory} builds it) and sends: each member of the view has
 * an {@link OutboxPeer}, started at the first frame to it, which hands frames to the {@link ChannelSender}. What the
 * channel delivers goes to the listener through the {@link ChannelReceiver}; {@link MemberNames} maps addresses to
 * members and back.
 */
public final class JGroupsTransport implements Transport {

    private static final Logger log = LoggerFactory.getLogger(JGroupsTransport.class);

    private final ShardingSettings settings;

    private final Consumer<JChannel> customizer;

    private final @Nullable JdbcDiscovery jdbcDiscovery;

    private volatile @Nullable ClusterGuard guard;

    /** The members of the view by address and back, with their names. */
    private final MemberNames names = new MemberNames();

    private @Nullable JChannel channel;

    private volatile String nodeName = "";

    /** The sender of each member of the current view, started at the first frame to it. */
    private final Map<Member, OutboxPeer> peers = new ConcurrentHashMap<>();

    private volatile java.util.Set<Address> viewMembers = java.util.Set.of();

    private volatile boolean stopped;

    /** The bounds of the queues toward one member, and the longest wait for room there. */
    private final Outbox.Limits limits;

    /** How long a member may stay behind before it is reported; 0 for never. */
    private final long suspectAfterNanos;

    /** Frames refused because their member was behind, over all members. */
    private final java.util.concurrent.atomic.AtomicLong refused = new java.util.concurrent.atomic.AtomicLong();

    private volatile @Nullable DeliveryRelay relay;

    private volatile @Nullable BehindWatch watch;

    /** The channel as the member's queues use it. */
    private final ChannelSender outboxChannel = new ChannelSender();

    /** How long {@link #close()} waits for queued frames to go out. */
    static final java.time.Duration CLOSE_FLUSH_TIMEOUT = java.time.Duration.ofSeconds(2);

    /**
     * Creates the transport.
     *
     * @param settings the settings: cluster name, node name, addresses or a stack of one's own
     * @param customizer called with the channel before it connects
     */
    public JGroupsTransport(ShardingSettings settings, Consumer<JChannel> customizer) {
        this(settings, customizer, null);
    }

    /**
     * Creates the transport with a database for JDBC discovery.
     *
     * @param settings the settings: cluster name, node name, addresses or a stack of one's own
     * @param customizer called with the channel before it connects
     * @param jdbcDiscovery where JDBC discovery keeps its table, or {@code null}
     */
    public JGroupsTransport(
            ShardingSettings settings, Consumer<JChannel> customizer, @Nullable JdbcDiscovery jdbcDiscovery) {
        this.settings = settings;
        this.customizer = customizer;
        this.jdbcDiscovery = jdbcDiscovery;
        dev.sharding.BackpressureSettings bp = settings.backpressure();
        this.limits = Outbox.Limits.of(
                bp.maxQueuedBytes(),
                bp.maxWait().toNanos(),
                bp.suspectAfter().isZero()
                        ? Outbox.Limits.PATIENT_WAIT_NANOS
                        : bp.suspectAfter().toNanos());
        this.suspectAfterNanos = bp.suspectAfter().toNanos();
    }

    @Override
    public void start(Listener listener) throws Exception {
        TeardownLogFactory.install();
        ClusterGuard g = new ClusterGuard(
                ClusterKeys.clusterKey(settings.jgroups(), settings.clusterName()), settings.clusterName());
        this.guard = g;
        JChannel ch = StackFactory.named(settings, jdbcDiscovery, g);
        nodeName = ch.getName();
        ChannelReceiver receiver = new ChannelReceiver(names, listener, this::viewInstalled);
        ch.setReceiver(receiver);
        ch.setDiscardOwnMessages(true);
        customizer.accept(ch);
        this.channel = ch;
        outboxChannel.channel(ch);
        try {
            ch.connect(settings.clusterName());
        } catch (Exception e) {
            ch.close();
            String refusal = g.refusal();
            if (refusal != null) {
                throw new ShardingException("Cannot join cluster '" + settings.clusterName() + "': " + refusal, e);
            }
            throw e;
        }
        self();
        log.info(
                "Node {} talks to its cluster on {}",
                nodeName,
                ch.down(new org.jgroups.Event(org.jgroups.Event.GET_PHYSICAL_ADDRESS, ch.getAddress())));
        org.jgroups.stack.ProtocolStack stack = ch.getProtocolStack();
        org.jgroups.protocols.UFC u = stack.findProtocol(org.jgroups.protocols.UFC.class);
        if (u != null) {
            outboxChannel.flowControl(u, inlineSendCredits(u));
        }
        relay = stack.findProtocol(DeliveryRelay.class);
        BehindReports reports = stack.findProtocol(BehindReports.class);
        if (suspectAfterNanos > 0 && reports != null) {
            watch = new BehindWatch(nodeName, peers, names, () -> viewMembers.size(), reports, suspectAfterNanos);
        }
        View view = ch.getView();
        if (view != null) {
            receiver.viewAccepted(view);
        }
    }

    /**
     * The credits a member must have for a lone frame to go out on its caller's thread: half of the credits at which a
     * receiver tops them up again ({@code min_credits}, 0.4 of the most by default). A member that keeps up hardly
     * goes below that, however far into a round of credits it is; one that stops topping them up soon does.
     *
     * @param ufc the channel's unicast flow control
     * @return the credits
     */
    public static long inlineSendCredits(org.jgroups.protocols.UFC ufc) {
        return Math.max(1, ufc.getMinCredits() / 2);
    }

    /**
     * The guard of this node's channel.
     *
     * @return the guard, or {@code null} before {@link #start(Listener)}
     */
    public @Nullable ClusterGuard guard() {
        return guard;
    }

    @Override
    public Member self() {
        Member m = names.self();
        if (m == null) {
            JChannel ch = channel;
            Address a = ch == null ? null : ch.getAddress();
            if (a == null) {
                throw new IllegalStateException("Transport not started");
            }
            m = names.self(a);
        }
        return m;
    }

    /**
     * The node name this transport gave its channel.
     *
     * @return the name
     */
    public String nodeName() {
        return nodeName;
    }

    /**
     * The channel, for inspection.
     *
     * @return the channel, or {@code null} before {@link #start(Listener)}
     */
    public @Nullable JChannel channel() {
        return channel;
    }

    /** What a frame is to the member's queues: how long its sender may wait, and which bounds it meets. */
    private enum FrameKind {
        /** An ask, a reply, an entity's message: its sender waits at most max-wait. */
        DATA(Outbox.Priority.DATA),
        /** A tell from an application's thread, which waits while the member keeps up. */
        TELL(Outbox.Priority.DATA),
        /** A protocol message that keeps the cluster running, with its reserve of room. */
        CONTROL(Outbox.Priority.CONTROL);

        final Outbox.Priority priority;

        FrameKind(Outbox.Priority priority) {
            this.priority = priority;
        }
    }

    @Override
    public boolean send(Member to, byte[] frame, boolean outOfBand) {
        return send(to, frame, 0, frame.length, outOfBand, FrameKind.DATA);
    }

    @Override
    public boolean send(Member to, byte[] buffer, int offset, int length, boolean outOfBand) {
        return send(to, buffer, offset, length, outOfBand, FrameKind.DATA);
    }

    @Override
    public boolean sendTell(Member to, byte[] frame) {
        return send(to, frame, 0, frame.length, false, FrameKind.TELL);
    }

    @Override
    public boolean sendControl(Member to, byte[] frame, boolean outOfBand) {
        return send(to, frame, 0, frame.length, outOfBand, FrameKind.CONTROL);
    }

    private boolean send(Member to, byte[] buffer, int offset, int length, boolean outOfBand, FrameKind kind) {
        OutboxPeer peer = peers.get(to);
        if (peer == null) {
            peer = startPeer(to);
            if (peer == null) {
                sendNow(to, buffer, offset, length, outOfBand); // not a member now: the channel drops it
                return true;
            }
        }
        // a thread delivering a message, or the control thread, never waits to send: the frame waits in the queue
        if (peer.send(
                buffer, offset, length, outOfBand, SendingThreads.dataWait(kind == FrameKind.TELL), kind.priority)) {
            return true;
        }
        refused.incrementAndGet();
        long n = peer.refused();
        if (n == 1 || Long.bitCount(n) == 1) {
            log.warn(
                    "Refused a {} frame to {}: {} bytes are queued toward it and it does not keep up ({} refused"
                            + " toward it so far; settings sharding.backpressure.max-wait and"
                            + " sharding.backpressure.max-queued-bytes)",
                    kind == FrameKind.CONTROL ? "control" : "data",
                    to.name(),
                    peer.queuedBytes(),
                    n);
        }
        return false;
    }

    /**
     * The most bytes queued toward one member now.
     *
     * @return the bytes
     */
    @Override
    public long maxQueuedBytes() {
        long max = 0;
        for (OutboxPeer p : peers.values()) {
            max = Math.max(max, p.queuedBytes());
        }
        DeliveryRelay d = relay;
        return d == null ? max : Math.max(max, d.maxLaneBytes());
    }

    @Override
    public long refusedFrames() {
        DeliveryRelay d = relay;
        return refused.get() + (d == null ? 0 : d.dropped());
    }

    @Override
    public long membersReportedBehind() {
        BehindWatch w = watch;
        return w == null ? 0 : w.reported();
    }

    private @Nullable OutboxPeer startPeer(Member to) {
        Address dest = names.address(to);
        if (stopped || dest == null || !viewMembers.contains(dest)) {
            return null;
        }
        synchronized (peers) {
            OutboxPeer peer = peers.get(to);
            if (peer == null && !stopped && viewMembers.contains(dest)) {
                peer = new OutboxPeer("sharding-send-" + nodeName + "-to-" + to.name(), outboxChannel, dest, limits);
                peers.put(to, peer);
            }
            return peer;
        }
    }

    private void sendNow(Member to, byte[] buffer, int offset, int length, boolean outOfBand) {
        Address dest = names.address(to);
        if (dest == null) {
            dest = new UUID(to.mostSignificantBits(), to.leastSignificantBits());
        }
        outboxChannel.send(dest, buffer, offset, length, outOfBand);
    }

    /**
     * Frames and channel messages sent so far, over all members: how well frames are batched.
     *
     * @return {frames, messages}
     */
    public long[] sendCounts() {
        long frames = 0;
        long messages = 0;
        for (OutboxPeer p : peers.values()) {
            frames += p.frames();
            messages += p.messages();
        }
        return new long[] {frames, messages};
    }

    private void stopPeers() {
        BehindWatch w = watch;
        if (w != null) {
            w.stop();
        }
        synchronized (peers) {
            stopped = true;
            peers.values().forEach(OutboxPeer::close);
            peers.clear();
        }
    }

    @Override
    public void close() {
        // the last frames (replies, the goodbye to the coordinator) still go out before the channel closes
        long deadline = System.nanoTime() + CLOSE_FLUSH_TIMEOUT.toNanos();
        for (OutboxPeer p : List.copyOf(peers.values())) {
            p.awaitSent(deadline);
        }
        stopPeers();
        JChannel ch = channel;
        if (ch != null) {
            ch.close();
        }
    }

    /**
     * Stops as a crash would: no LEAVE is sent and nothing more goes out, so the others notice only through failure
     * detection. For tests.
     */
    @Override
    public void crash() {
        stopPeers();
        JChannel ch = channel;
        if (ch != null) {
            try {
                Util.shutdown(ch);
            } catch (Exception e) {
                ch.close();
            }
        }
    }

    @Override
    public long failureDetectionNanos() {
        JChannel ch = channel;
        if (ch == null) {
            return -1;
        }
        return StackFactory.failureDetectionNanos(ch.getProtocolStack());
    }

    /** A view was installed: the queues toward members gone are closed, before the listener hears of it. */
    private void viewInstalled(View view) {
        synchronized (peers) {
            viewMembers = java.util.Set.copyOf(view.getMembers());
            peers.entrySet().removeIf(e -> {
                if (names.address(e.getKey()) != null) {
                    return false;
                }
                e.getValue().close();
                return true;
            });
        }
    }
}
