package dev.sharding.internal.transport;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.Message;
import org.jgroups.View;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.stack.Protocol;
import org.jgroups.util.MessageBatch;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the threads that deliver messages from ever waiting to write one.
 *
 * <p>The built-in stack delivers every message on the thread that read it from its connection (no hand-off to a
 * pool thread per message). Such a thread must never wait to send: if it waited for room in a full socket while the
 * node at the other end waited likewise, neither would read again. What the protocols above send while handling a
 * message (acknowledgements, flow-control credits, retransmissions, failure-detection answers) is therefore handed,
 * here, to a lane per destination, which a relay thread drains in the order the messages were sent: a destination
 * whose socket is full holds up its own lane only. Everything else (the sharding frames, which their own sender
 * threads write, and the timers' messages) goes down on the sending thread, as before. The sharding transport, for
 * its part, never writes a frame on a delivering thread either: it queues it for the member's sender thread
 * ({@link SendingThreads}).
 *
 * <p>A lane holds at most {@code maxLaneBytes}; a message beyond that is dropped and counted ({@link #dropped()}).
 * That is survivable, as the transport dropping it would be: what delivering threads send is acknowledgements (the
 * next one covers it: they are cumulative), flow-control credits (the sender asks again after its longest block),
 * retransmissions (sent again at the next retransmission interval), and answers to failure-detection and view
 * messages (asked again, or their timeout passes). A lane that full belongs to a member that reads far more slowly
 * than this node sends, which the sharding transport reports to failure detection.
 *
 * <p>Placed directly above the transport protocol, so that every message passes through it both ways.
 */
public final class DeliveryRelay extends Protocol {

    /** The protocol id (ids of 1024 and more are free for applications). */
    static final short ID = 1751;

    static {
        ClassConfigurator.addProtocol(ID, DeliveryRelay.class);
    }

    private static final Logger logger = LoggerFactory.getLogger(DeliveryRelay.class);

    /** The lane of messages to every member at once. */
    private static final Object EVERYONE = new Object();

    private final Map<Object, Lane> lanes = new ConcurrentHashMap<>();

    private final AtomicLong relayed = new AtomicLong();

    private final AtomicLong dropped = new AtomicLong();

    private final long maxLaneBytes;

    /** The relay threads; {@code null} before start and after stop, when nothing is relayed. */
    private volatile @Nullable ExecutorService relays;

    /** A message waiting in a lane, with the size it was counted at. */
    private record Relayed(Message msg, int size) {}

    /** The messages for one destination, drained by at most one relay thread at a time. */
    private final class Lane implements Runnable {

        private final ConcurrentLinkedQueue<Relayed> queue = new ConcurrentLinkedQueue<>();

        private final AtomicBoolean draining = new AtomicBoolean();

        private final AtomicLong bytes = new AtomicLong();

        void add(Message msg, ExecutorService pool) {
            int size = msg.size();
            if (bytes.addAndGet(size) > maxLaneBytes && bytes.get() != size) {
                bytes.addAndGet(-size);
                long n = dropped.incrementAndGet();
                if (n == 1 || Long.bitCount(n) == 1) {
                    logger.warn(
                            "Dropped a message to {} while delivering: {} bytes wait to be written to it ({} dropped"
                                    + " so far; JGroups sends it again; setting sharding.backpressure.max-queued-bytes)",
                            msg.getDest() == null ? "all members" : msg.getDest(),
                            bytes.get(),
                            n);
                }
                return;
            }
            queue.offer(new Relayed(msg, size));
            if (draining.compareAndSet(false, true)) {
                try {
                    pool.execute(this);
                } catch (RejectedExecutionException e) {
                    draining.set(false); // stopping: dropped, as the transport drops what it has not written
                }
            }
        }

        @Override
        public void run() {
            while (true) {
                Relayed r;
                while (relays != null && (r = queue.poll()) != null) {
                    try {
                        down_prot.down(r.msg());
                    } catch (RuntimeException e) {
                        logger.debug(
                                "Dropped a relayed message to {}: {}", r.msg().getDest(), e.toString());
                    } finally {
                        bytes.addAndGet(-r.size());
                    }
                }
                draining.set(false);
                // a message added after the last poll and before the flag was cleared found it set: take it
                if (relays == null || queue.isEmpty() || !draining.compareAndSet(false, true)) {
                    return;
                }
            }
        }
    }

    /** Creates the relay with the default bound per lane. */
    public DeliveryRelay() {
        this(dev.sharding.BackpressureSettings.DEFAULT_MAX_QUEUED_BYTES);
    }

    /**
     * Creates the relay.
     *
     * @param maxLaneBytes the most bytes a lane holds; a message beyond that is dropped
     */
    public DeliveryRelay(long maxLaneBytes) {
        this.maxLaneBytes = maxLaneBytes;
    }

    /**
     * Messages dropped because their lane was full.
     *
     * @return the count
     */
    public long dropped() {
        return dropped.get();
    }

    /**
     * The bytes waiting in the fullest lane.
     *
     * @return the bytes
     */
    public long maxLaneBytes() {
        long max = 0;
        for (Lane lane : lanes.values()) {
            max = Math.max(max, lane.bytes.get());
        }
        return max;
    }

    /**
     * Messages sent while delivering, which a relay thread wrote instead.
     *
     * @return the count
     */
    public long relayed() {
        return relayed.get();
    }

    @Override
    public void start() throws Exception {
        super.start();
        AtomicInteger threads = new AtomicInteger();
        String node = getProtocolStack() == null || getProtocolStack().getChannel() == null
                ? ""
                : "-" + getProtocolStack().getChannel().getName();
        relays = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "sharding-relay" + node + "-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void stop() {
        ExecutorService pool = relays;
        relays = null;
        if (pool != null) {
            pool.shutdown();
        }
        lanes.clear(); // as the transport drops what it had not written when it stops
        super.stop();
    }

    @Override
    public @Nullable Object up(Message msg) {
        // how deep the thread is in deliveries: a delivery may send to itself, which delivers again
        int[] depth = SendingThreads.state();
        depth[0]++;
        try {
            return up_prot.up(msg);
        } finally {
            depth[0]--;
        }
    }

    @Override
    public void up(MessageBatch batch) {
        // how deep the thread is in deliveries: a delivery may send to itself, which delivers again
        int[] depth = SendingThreads.state();
        depth[0]++;
        try {
            up_prot.up(batch);
        } finally {
            depth[0]--;
        }
    }

    @Override
    public @Nullable Object down(Message msg) {
        ExecutorService pool = relays;
        if (pool != null && SendingThreads.delivering()) {
            Address dest = msg.getDest();
            lanes.computeIfAbsent(dest == null ? EVERYONE : dest, k -> new Lane())
                    .add(msg, pool);
            relayed.incrementAndGet();
            return null;
        }
        return down_prot.down(msg);
    }

    @Override
    public Object down(Event evt) {
        if (evt.getType() == Event.VIEW_CHANGE) {
            View view = evt.getArg();
            // lanes of members gone: what they still hold is written, and a new lane is made if one comes back
            lanes.keySet().removeIf(k -> k != EVERYONE && !view.containsMember((Address) k));
        }
        return down_prot.down(evt);
    }
}
