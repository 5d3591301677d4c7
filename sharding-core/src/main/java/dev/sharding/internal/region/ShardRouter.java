package dev.sharding.internal.region;

import dev.sharding.BufferFullException;
import dev.sharding.ClusterPartitionedException;
import dev.sharding.Member;
import dev.sharding.MemberBehindException;
import dev.sharding.internal.ask.PendingAsk;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.entity.IdentifiedMessage;
import dev.sharding.internal.entity.TracedMessage;
import dev.sharding.internal.protocol.EntityEnvelope;
import dev.sharding.spi.EntityTypeMetrics;
import dev.sharding.spi.EntityTypeMetrics.DropReason;
import dev.sharding.spi.MessageTracing;
import dev.sharding.spi.ShardIdFunction;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routing and buffering for one region: the hot path from a caller, or from a frame of another node, to the shard's
 * home.
 *
 * <ul>
 * <li>When a slot knows its shard's home, the caller's thread delivers at once: into the entity's mailbox when the
 * home is this node, or as one unicast to the home's region otherwise (which may forward it again if its own
 * knowledge is newer).</li>
 * <li>When the home is unknown (not asked yet, or a handoff is under way), the message joins the slot's buffer, at
 * most {@code buffer-size} messages over the region (and {@code buffer-bytes} of frames from other nodes, which
 * {@link ReceivedFrames} takes), and the region asks the coordinator once; the answer ({@link #homeKnown}) sends the
 * buffer on in arrival order and only then publishes the home, so a caller that sees the home never overtakes a
 * message it buffered earlier ({@link ShardSlot} holds that order).</li>
 * <li>Each slot counts the threads between reading its home and finishing their send ({@link ShardSlot#enterSend}),
 * so that a handoff acknowledges only once every message sent on the old home has left.</li>
 * <li>A message that goes no further is answered in one way ({@link Refusals}).</li>
 * </ul>
 *
 * <p>Caller and transport threads touch a slot's buffer under its monitor, and only while its home is unknown; homes
 * change on the control thread only.
 */
final class ShardRouter implements ShardSlot.Buffers {

    private static final Logger log = LoggerFactory.getLogger(ShardRouter.class);

    private final RegionHost node;

    private final String typeName;

    private final int numberOfShards;

    private final ShardSlot[] slots;

    private final ShardIdFunction shardIds;

    private final AtomicInteger buffered = new AtomicInteger();

    /** Bytes of the frames from other nodes in the buffers, bounded by {@code buffer-bytes}. */
    private final AtomicLong bufferedBytes = new AtomicLong();

    private final Refusals refusals;

    private final ReceivedFrames frames;

    /** Read once: whether local deliveries go through the codec and back ({@link LocalRoundTrip}). */
    private final boolean serializeLocalMessages;

    /**
     * Read once: whether the node traces messages, so that only then are headers looked for in messages sent and
     * carried from received envelopes to their entities ({@link TracedMessage}).
     */
    private final boolean traced;

    ShardRouter(
            RegionHost node, String typeName, ShardSlot[] slots, ShardIdFunction shardIds, EntityTypeMetrics metrics) {
        this.node = node;
        this.typeName = typeName;
        this.numberOfShards = slots.length;
        this.slots = slots;
        this.shardIds = shardIds;
        this.serializeLocalMessages = node.services().serializeLocalMessages();
        this.traced = node.services().tracing() != MessageTracing.NONE;
        this.refusals = new Refusals(metrics);
        this.frames = new ReceivedFrames(node, typeName, slots, this, refusals);
    }

    /**
     * The shard of an id under the type's function, checked.
     *
     * @throws IllegalArgumentException if the function fails or answers a shard out of range
     */
    int shardOf(String entityId) {
        int shard;
        try {
            shard = shardIds.shardId(entityId, numberOfShards);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "The shard id function of entity type " + typeName + " failed for [" + entityId + "]: " + e, e);
        }
        if (shard < 0 || shard >= numberOfShards) {
            throw new IllegalArgumentException("The shard id function of entity type " + typeName + " ("
                    + shardIds + ") answered shard " + shard + " for [" + entityId + "]: shards are 0 to "
                    + (numberOfShards - 1));
        }
        return shard;
    }

    /** Messages waiting for shard homes now. */
    int buffered() {
        return buffered.get();
    }

    /** Tells dropped on the way: a full buffer or queue, a node that does not serve, a message refused. */
    long droppedTells() {
        return refusals.droppedTells();
    }

    /**
     * Members are leaving the view: forget homes on them so that the next message asks the coordinator. Runs before
     * the view is published. Control thread.
     */
    void forgetHomesOn(Collection<Member> gone) {
        for (ShardSlot slot : slots) {
            Member home = slot.home();
            if (home != null && gone.contains(home)) {
                slot.forgetHome(this);
            }
        }
    }

    /** Sends a message sent on this node towards its entity. */
    void route(ShardSlot slot, String entityId, Object message, @Nullable PendingAsk<?> ask) {
        slot.enterSend();
        try {
            Member home = slot.home();
            while (true) {
                if (home == null) {
                    home = slot.homeOrBuffer(new Buffered.Local(entityId, message, ask), this);
                    if (home == null) {
                        return; // buffered
                    }
                }
                if (sendTo(slot, home, entityId, message, ask)) {
                    return;
                }
                // the home left the view after it was read: the view's change cleared it first, so the slot now
                // holds no home (the message waits in its buffer) or a newer one
                home = null;
            }
        } finally {
            slot.leaveSend();
        }
    }

    /**
     * Sends a message to the home read from its slot; false, having sent nothing, when that home is no longer in the
     * view. An ask is registered before the view is looked at, so a view published after the look fails it (the
     * view's change fails every ask registered for a member gone once it published the view).
     */
    private boolean sendTo(ShardSlot slot, Member home, String entityId, Object message, @Nullable PendingAsk<?> ask) {
        if (home.equals(node.view().self())) {
            Shard local = slot.local();
            if (local != null) {
                if (ask != null) {
                    ask.target = home;
                }
                ReplySink sink = ask == null ? ReplySink.TELL : ask;
                if (serializeLocalMessages) {
                    LocalRoundTrip.deliver(node.services().codec(), local, entityId, message, sink);
                } else {
                    local.deliver(entityId, message, sink);
                }
                return true;
            }
        }
        long correlationId = 0;
        Member replyTo = null;
        if (ask != null) {
            ask.target = home;
            ask.remote = true;
            correlationId = node.services().asks().register(ask);
            replyTo = node.view().self();
        }
        if (!node.view().isMember(home)) {
            if (ask != null) {
                if (node.services().asks().remove(correlationId) != ask) {
                    return true; // the view's change failed it already: nothing more to send
                }
                ask.remote = false; // taken back; sent again wherever the shard's home is now
            }
            return false;
        }
        Map<String, String> headers = null;
        if (traced && message instanceof TracedMessage tracedMessage) {
            headers = tracedMessage.headers();
            message = tracedMessage.message();
        }
        String messageId = null;
        if (message instanceof IdentifiedMessage identified) {
            messageId = identified.messageId();
            message = identified.message();
        }
        byte[] payload = node.services().codec().encode(message);
        EntityEnvelope envelope = new EntityEnvelope(
                typeName,
                entityId,
                slot.shardId(),
                correlationId,
                replyTo,
                payload,
                0,
                payload.length,
                messageId,
                headers);
        byte[] frame = node.services().protocol().encode(envelope);
        if (!(ask == null
                ? node.services().transport().sendTell(home, frame)
                : node.services().transport().send(home, frame, false))) {
            String reason = "The queue toward node " + home.name() + " hosting shard " + slot.shardId() + " of "
                    + typeName + " is full: it does not keep up (settings sharding.backpressure.max-wait and"
                    + " sharding.backpressure.max-queued-bytes); nothing was sent";
            if (ask == null) {
                refusals.refuse(ReplySink.TELL, new MemberBehindException(reason), DropReason.BACKPRESSURE);
            } else if (node.services().asks().remove(correlationId) == ask) {
                refusals.refuse(
                        ask,
                        new MemberBehindException("Ask to [" + typeName + "/" + entityId + "] refused: " + reason),
                        DropReason.BACKPRESSURE);
            }
        }
        return true;
    }

    // ---- the slots' buffers --------------------------------------------------------------------------------------

    /**
     * Counts an item against the region's bounds, under its slot's monitor. A frame from another node that does not
     * fit is refused here; a message sent on this node throws {@link BufferFullException} to its caller (a tell counted
     * as dropped first; an ask fails with it in {@link Region}), outside the monitor.
     */
    @Override
    public boolean admit(ShardSlot slot, Buffered item) {
        String reason = null;
        int bytes = item.bytes();
        if (buffered.incrementAndGet() > node.services().settings().bufferSize()) {
            buffered.decrementAndGet();
            reason = "Buffer of region " + typeName + " on " + node.view().nodeName() + " is full ("
                    + node.services().settings().bufferSize()
                    + " messages waiting for shard homes; setting buffer-size)";
        } else if (bytes > 0
                && bufferedBytes.addAndGet(bytes) > node.services().settings().bufferBytes()) {
            bufferedBytes.addAndGet(-bytes);
            buffered.decrementAndGet();
            reason = "Buffer of region " + typeName + " on " + node.view().nodeName() + " is full (more than "
                    + node.services().settings().bufferBytes()
                    + " bytes of messages from other nodes waiting for shard homes;"
                    + " setting buffer-bytes)";
        }
        if (reason == null) {
            return true;
        }
        BufferFullException full = new BufferFullException(reason);
        if (item instanceof Buffered.Forwarded forwarded) {
            frames.refuse(forwarded.envelope(), full, DropReason.BUFFER_FULL);
            return false;
        }
        if (((Buffered.Local) item).ask() == null) {
            refusals.refuse(ReplySink.TELL, full, DropReason.BUFFER_FULL);
        }
        throw full;
    }

    @Override
    public void released(Buffered item) {
        buffered.decrementAndGet();
        int bytes = item.bytes();
        if (bytes > 0) {
            bufferedBytes.addAndGet(-bytes);
        }
    }

    @Override
    public void flush(ShardSlot slot, Member home, Buffered item) {
        if (item instanceof Buffered.Forwarded forwarded) {
            byte[] frame = forwarded.frame();
            frames.deliverReceived(slot, home, forwarded.envelope(), frame, 0, frame.length);
            return;
        }
        Buffered.Local local = (Buffered.Local) item;
        PendingAsk<?> ask = local.ask();
        if (ask != null && ask.isDone()) {
            return; // timed out while buffered
        }
        try {
            sendTo(slot, home, local.entityId(), local.message(), ask);
        } catch (RuntimeException e) {
            refusals.refuse(local.sink(), e, DropReason.STOPPED);
        }
    }

    @Override
    public void requestHome(ShardSlot slot) {
        // on the control thread later: after the view being applied, so that it goes to that view's coordinator
        node.plane().control().execute(() -> node.plane().requestShardHome(typeName, slot.shardId()));
    }

    @Override
    public void dropped(Buffered item, RuntimeException reason) {
        DropReason why = reason instanceof ClusterPartitionedException ? DropReason.PARTITIONED : DropReason.STOPPED;
        if (item instanceof Buffered.Forwarded forwarded) {
            frames.refuse(forwarded.envelope(), reason, why);
        } else {
            refusals.refuse(((Buffered.Local) item).sink(), reason, why);
        }
    }

    /** Bytes of frames from other nodes waiting for shard homes now. */
    long bufferedBytes() {
        return bufferedBytes.get();
    }

    // ---- frames from other nodes (transport threads) ---------------------------------------------------------

    /** An envelope arrived from another node ({@link ReceivedFrames#receive}). */
    void receive(EntityEnvelope env, byte[] frame, int offset, int length) {
        frames.receive(env, frame, offset, length);
    }

    // ---- control thread ------------------------------------------------------------------------------------

    /** The coordinator says where the shard lives: send the buffer on, in order, then publish the home. */
    void homeKnown(int shardId, Member home) {
        if (shardId < 0 || shardId >= numberOfShards) {
            log.warn("Ignoring home of shard {} of {}: out of range", shardId, typeName);
            return;
        }
        ShardSlot slot = slots[shardId];
        if (!node.view().members().contains(home)) {
            // a member that is gone (or not yet known here): the home is asked for again at the next retry
            log.debug(
                    "Ignoring home {} of shard {} of {}: not in the view {}",
                    home,
                    shardId,
                    typeName,
                    node.view().members());
            return;
        }
        if (home.equals(node.view().self())) {
            Shard local = slot.local();
            if (local == null || local.stopping()) {
                // stale: only HostShard makes this region a home; ask again if messages wait
                log.debug(
                        "Ignoring stale home of shard {} of {} on {}",
                        shardId,
                        typeName,
                        node.view().nodeName());
                return;
            }
        }
        publish(slot, home);
    }

    /** Sends the slot's buffer on to the home, then publishes it ({@link ShardSlot#publish}). Control thread. */
    void publish(ShardSlot slot, Member home) {
        slot.publish(home, this);
    }

    /**
     * Asks again for the homes of shards with waiting messages, and frees the buffer space of asks that timed out
     * while waiting. Control thread.
     */
    void retryRequests() {
        for (ShardSlot slot : slots) {
            if (slot.retry(this)) {
                node.plane().requestShardHome(typeName, slot.shardId());
            }
        }
    }

    /** Fails or drops everything still buffered (the node stops). */
    void dropBuffers(RuntimeException reason) {
        for (ShardSlot slot : slots) {
            slot.dropBuffer(reason, this);
        }
    }

    @Nullable
    Member homeOf(int shardId) {
        return slots[shardId].home();
    }
}
