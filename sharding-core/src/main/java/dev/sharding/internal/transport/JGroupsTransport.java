package dev.sharding.internal.transport;

import dev.sharding.Member;
import dev.sharding.ShardingException;
import dev.sharding.ShardingSettings;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.View;
import org.jgroups.util.MessageBatch;
import org.jgroups.util.NameCache;
import org.jgroups.util.UUID;
import org.jgroups.util.Util;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport on one JGroups channel. Frames are {@link BytesMessage}s (no JGroups marshalling of our objects);
 * the channel's per-sender FIFO delivery is what keeps per-sender order between nodes.
 */
public final class JGroupsTransport implements Transport, Receiver {

    private static final Logger log = LoggerFactory.getLogger(JGroupsTransport.class);

    private final ShardingSettings settings;

    private final Consumer<JChannel> customizer;

    private final @Nullable JdbcDiscovery jdbcDiscovery;

    private volatile @Nullable ClusterGuard guard;

    private final Map<Address, Member> members = new ConcurrentHashMap<>();

    private final Map<Member, Address> addresses = new ConcurrentHashMap<>();

    private @Nullable JChannel channel;

    private volatile @Nullable Member self;

    private volatile @Nullable Listener listener;

    private volatile String nodeName = "";

    /** The sender of each member of the current view, started at the first frame to it. */
    private final Map<Member, Outbox.Peer> peers = new ConcurrentHashMap<>();

    private volatile java.util.Set<Address> viewMembers = java.util.Set.of();

    /** The last view, to publish again when a member's name becomes known. */
    private volatile @Nullable View lastView;

    /** Members whose name JGroups did not know when they were first seen: named by their UUID until it does. */
    private final java.util.Set<Address> unnamed = ConcurrentHashMap.newKeySet();

    /** Whether {@link #unnamed} holds any: read on every frame, so a volatile flag rather than the set. */
    private volatile boolean anyUnnamed;

    private volatile boolean stopped;

    private final java.util.concurrent.atomic.AtomicLong malformedBatches =
            new java.util.concurrent.atomic.AtomicLong();

    /** The bounds of the queues toward one member, and the longest wait for room there. */
    private final Outbox.Limits limits;

    /** How long a member may stay behind before it is reported; 0 for never. */
    private final long suspectAfterNanos;

    /** Frames refused because their member was behind, over all members. */
    private final java.util.concurrent.atomic.AtomicLong refused = new java.util.concurrent.atomic.AtomicLong();

    private volatile org.jgroups.protocols.@Nullable UFC ufc;

    /**
     * The credits a member must have for a lone frame to go out on its caller's thread: fewer than a member that keeps
     * up ever has, more than one that has stopped topping them up keeps for long.
     */
    private volatile long readyCredits;

    private volatile @Nullable DeliveryRelay relay;

    private volatile @Nullable BehindWatch watch;

    /** The channel as the member's queues use it. */
    private final Outbox.Channel outboxChannel = new Outbox.Channel() {
        @Override
        public void send(Object destination, byte[] buffer, int offset, int length, boolean outOfBand) {
            channelSend(destination, buffer, offset, length, outOfBand);
        }

        @Override
        public boolean ready(Object destination, int length) {
            org.jgroups.protocols.UFC u = ufc;
            return u == null || u.getSenderCreditsFor((Address) destination) >= Math.max(length, readyCredits);
        }
    };

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
        this.listener = listener;
        TeardownLogFactory.install();
        String name = settings.nodeName();
        ClusterGuard g = new ClusterGuard(
                ClusterKeys.clusterKey(settings.jgroups(), settings.clusterName()), settings.clusterName());
        this.guard = g;
        JChannel ch;
        if (settings.jgroups().config() != null) {
            ch = StackFactory.channel(settings, 0, InetAddress.getLoopbackAddress(), jdbcDiscovery, g);
        } else {
            InetAddress address = StackFactory.bindAddress(settings.jgroups().bindAddress());
            int port = StackFactory.firstFreePort(
                    address, settings.jgroups().bindPort(), settings.jgroups().portRange());
            ch = StackFactory.channel(settings, port, address, jdbcDiscovery, g);
            InitialHosts.warnIfNotListed(settings, port);
            if (name == null) {
                name = address.getHostAddress() + ":" + port;
            }
        }
        if (name == null) {
            name = "node-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        }
        nodeName = name;
        ch.name(name);
        ch.setReceiver(this);
        ch.setDiscardOwnMessages(true);
        customizer.accept(ch);
        this.channel = ch;
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
        org.jgroups.stack.ProtocolStack stack = ch.getProtocolStack();
        org.jgroups.protocols.UFC u = stack.findProtocol(org.jgroups.protocols.UFC.class);
        if (u != null) {
            readyCredits = inlineSendCredits(u);
            ufc = u;
        }
        relay = stack.findProtocol(DeliveryRelay.class);
        BehindReports reports = stack.findProtocol(BehindReports.class);
        if (suspectAfterNanos > 0 && reports != null) {
            watch = new BehindWatch(nodeName, peers, addresses, () -> viewMembers.size(), reports, suspectAfterNanos);
        }
        View view = ch.getView();
        if (view != null) {
            viewAccepted(view);
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
        Member m = self;
        if (m == null) {
            JChannel ch = channel;
            Address a = ch == null ? null : ch.getAddress();
            if (a == null) {
                throw new IllegalStateException("Transport not started");
            }
            m = toMember(a);
            self = m;
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

    @Override
    public boolean send(Member to, byte[] frame, boolean outOfBand) {
        return send(to, frame, 0, frame.length, outOfBand, false, false);
    }

    @Override
    public boolean send(Member to, byte[] buffer, int offset, int length, boolean outOfBand) {
        return send(to, buffer, offset, length, outOfBand, false, false);
    }

    @Override
    public boolean sendTell(Member to, byte[] frame) {
        return send(to, frame, 0, frame.length, false, false, true);
    }

    @Override
    public boolean sendControl(Member to, byte[] frame, boolean outOfBand) {
        return send(to, frame, 0, frame.length, outOfBand, true, false);
    }

    private boolean send(
            Member to, byte[] buffer, int offset, int length, boolean outOfBand, boolean control, boolean tell) {
        Outbox.Peer peer = peers.get(to);
        if (peer == null) {
            peer = startPeer(to);
            if (peer == null) {
                sendNow(to, buffer, offset, length, outOfBand); // not a member now: the channel drops it
                return true;
            }
        }
        // a thread delivering a message, or the control thread, never waits to send: the frame waits in the queue
        if (peer.send(buffer, offset, length, outOfBand, SendingThreads.dataWait(tell), control)) {
            return true;
        }
        refused.incrementAndGet();
        long n = peer.refused();
        if (n == 1 || Long.bitCount(n) == 1) {
            log.warn(
                    "Refused a {} frame to {}: {} bytes are queued toward it and it does not keep up ({} refused"
                            + " toward it so far; settings sharding.backpressure.max-wait and"
                            + " sharding.backpressure.max-queued-bytes)",
                    control ? "control" : "data",
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
        for (Outbox.Peer p : peers.values()) {
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

    private Outbox.@Nullable Peer startPeer(Member to) {
        Address dest = addresses.get(to);
        if (stopped || dest == null || !viewMembers.contains(dest)) {
            return null;
        }
        synchronized (peers) {
            Outbox.Peer peer = peers.get(to);
            if (peer == null && !stopped && viewMembers.contains(dest)) {
                peer = new Outbox.Peer("sharding-send-" + nodeName + "-to-" + to.name(), outboxChannel, dest, limits);
                peers.put(to, peer);
            }
            return peer;
        }
    }

    private void sendNow(Member to, byte[] buffer, int offset, int length, boolean outOfBand) {
        Address dest = addresses.get(to);
        if (dest == null) {
            dest = new UUID(to.mostSignificantBits(), to.leastSignificantBits());
        }
        channelSend(dest, buffer, offset, length, outOfBand);
    }

    private void channelSend(Object destination, byte[] buffer, int offset, int length, boolean outOfBand) {
        JChannel ch = channel;
        if (ch == null) {
            return;
        }
        Message msg = new BytesMessage((Address) destination, buffer, offset, length);
        if (outOfBand) {
            msg.setFlag(Message.Flag.OOB);
        }
        try {
            ch.send(msg);
        } catch (Exception e) {
            log.debug("Dropped a frame to {}: {}", destination, e.toString());
        }
    }

    /**
     * Frames and channel messages sent so far, over all members: how well frames are batched.
     *
     * @return {frames, messages}
     */
    public long[] sendCounts() {
        long frames = 0;
        long messages = 0;
        for (Outbox.Peer p : peers.values()) {
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
            peers.values().forEach(Outbox.Peer::close);
            peers.clear();
        }
    }

    @Override
    public void close() {
        // the last frames (replies, the goodbye to the coordinator) still go out before the channel closes
        long deadline = System.nanoTime() + CLOSE_FLUSH_TIMEOUT.toNanos();
        for (Outbox.Peer p : List.copyOf(peers.values())) {
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

    @Override
    public void receive(Message msg) {
        Listener l = listener;
        Address src = msg.getSrc();
        if (l == null || src == null) {
            return;
        }
        if (anyUnnamed) {
            learnName(l, src);
        }
        deliver(l, toMember(src), msg.getArray(), msg.getOffset(), msg.getLength());
    }

    @Override
    public void receive(MessageBatch batch) {
        Listener l = listener;
        if (l == null) {
            return;
        }
        if (anyUnnamed) {
            learnName(l, batch.sender());
        }
        Member from = toMember(batch.sender());
        for (Message msg : batch) {
            deliver(l, from, msg.getArray(), msg.getOffset(), msg.getLength());
        }
    }

    private void deliver(Listener l, Member from, byte[] buffer, int offset, int length) {
        if (length > 0 && buffer[offset] == Outbox.BATCH_MAGIC) {
            String broken = Outbox.unpack(buffer, offset, length, (b, o, n) -> l.onFrame(from, b, o, n));
            if (broken != null) {
                long n = malformedBatches.incrementAndGet();
                if (n == 1 || Long.bitCount(n) == 1) {
                    log.warn(
                            "Dropped the rest of a malformed batch of {} bytes from {} ({} so far): {}",
                            length,
                            from,
                            n,
                            broken);
                }
            }
        } else {
            l.onFrame(from, buffer, offset, length);
        }
    }

    /** A frame from a member still named by its UUID: if JGroups knows its name now, the view is published again. */
    private void learnName(Listener l, Address from) {
        View view = lastView;
        if (unnamed.contains(from) && rename(from) && view != null) {
            List<Member> list = new ArrayList<>(view.size());
            for (Address a : view.getMembers()) {
                list.add(toMember(a));
            }
            log.info("Learnt the name of member {}: publishing view {} again", from, list);
            l.onView(List.copyOf(list));
        }
    }

    /** Gives a member first seen without a name the name JGroups knows now; true if it changed. */
    private boolean rename(Address a) {
        String name = NameCache.get(a);
        if (name == null) {
            return false;
        }
        synchronized (unnamed) {
            Member old = members.get(a);
            unnamed.remove(a);
            anyUnnamed = !unnamed.isEmpty();
            if (old == null || old.name().equals(name)) {
                return false;
            }
            Member named = new Member(old.mostSignificantBits(), old.leastSignificantBits(), name);
            members.put(a, named);
            addresses.remove(old); // an equal key: removed first, so that the map keeps the named one
            addresses.put(named, a);
            if (old.equals(self)) {
                self = named;
            }
            return true;
        }
    }

    @Override
    public void viewAccepted(View view) {
        lastView = view;
        for (Address a : view.getMembers()) {
            if (anyUnnamed && unnamed.contains(a)) {
                rename(a);
            }
        }
        List<Member> list = new ArrayList<>(view.size());
        for (Address a : view.getMembers()) {
            list.add(toMember(a));
        }
        members.keySet().retainAll(view.getMembers());
        addresses.values().retainAll(view.getMembers());
        if (anyUnnamed) {
            synchronized (unnamed) {
                unnamed.retainAll(view.getMembers());
                anyUnnamed = !unnamed.isEmpty();
            }
        }
        synchronized (peers) {
            viewMembers = java.util.Set.copyOf(view.getMembers());
            peers.entrySet().removeIf(e -> {
                if (addresses.containsKey(e.getKey())) {
                    return false;
                }
                e.getValue().close();
                return true;
            });
        }
        Listener l = listener;
        if (l != null) {
            l.onView(List.copyOf(list));
        }
    }

    private Member toMember(Address a) {
        Member m = members.get(a);
        if (m != null) {
            return m;
        }
        String name = NameCache.get(a);
        if (a instanceof UUID u) {
            m = new Member(u.getMostSignificantBits(), u.getLeastSignificantBits(), name == null ? a.toString() : name);
        } else {
            throw new ShardingException(
                    "Unsupported JGroups address type " + a.getClass().getName());
        }
        members.put(a, m);
        addresses.put(m, a);
        if (name == null) {
            // named by its UUID until JGroups learns its name: looked up again on each view and frame from it
            synchronized (unnamed) {
                unnamed.add(a);
                anyUnnamed = true;
            }
        }
        return m;
    }
}
