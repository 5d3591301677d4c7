package dev.sharding.internal.region;

import dev.sharding.BufferFullException;
import dev.sharding.Member;
import dev.sharding.MemberBehindException;
import dev.sharding.MessageRejectedException;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.ask.PendingAsk;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.entity.IdentifiedMessage;
import dev.sharding.internal.protocol.EntityEnvelope;
import dev.sharding.internal.protocol.FailureKind;
import dev.sharding.internal.transport.SendingThreads;
import dev.sharding.spi.EntityTypeMetrics;
import dev.sharding.spi.EntityTypeMetrics.DropReason;
import dev.sharding.spi.MessageTracing;
import dev.sharding.spi.ShardIdFunction;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
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
 * most {@code buffer-size} messages over the region (and {@code buffer-bytes} of frames from other nodes), and the
 * region asks the coordinator once; the answer
 * ({@link #homeKnown}) sends the buffer on in arrival order and only then publishes the home, so a caller that sees
 * the home never overtakes a message it buffered earlier.</li>
 * <li>Each slot counts the threads between reading its home and finishing their send ({@link ShardSlot#senders}), so
 * that a handoff acknowledges only once every message sent on the old home has left.</li>
 * </ul>
 *
 * <p>Caller and transport threads touch a slot's buffer under its monitor, and only while its home is unknown; homes
 * change on the control thread only.
 */
public final class ShardRouter {

    private static final Logger log = LoggerFactory.getLogger(ShardRouter.class);

    private final RegionHost node;

    private final String typeName;

    private final int numberOfShards;

    private final ShardSlot[] slots;

    private final ShardIdFunction shardIds;

    private final AtomicInteger buffered = new AtomicInteger();

    /** Bytes of the frames from other nodes in the buffers, bounded by {@code buffer-bytes}. */
    private final AtomicLong bufferedBytes = new AtomicLong();

    private final AtomicLong droppedTells = new AtomicLong();

    /** Read once: whether local deliveries go through the codec and back ({@link LocalRoundTrip}). */
    private final boolean serializeLocalMessages;

    private final EntityTypeMetrics metrics;

    /**
     * Read once: whether the node traces messages, so that only then are headers looked for in messages sent and
     * carried from received envelopes to their entities ({@link TracedMessage}).
     */
    private final boolean traced;

    ShardRouter(
            RegionHost node, String typeName, ShardSlot[] slots, ShardIdFunction shardIds, EntityTypeMetrics metrics) {
        this.node = node;
        this.metrics = metrics;
        this.typeName = typeName;
        this.numberOfShards = slots.length;
        this.slots = slots;
        this.shardIds = shardIds;
        this.serializeLocalMessages = node.serializeLocalMessages();
        this.traced = node.tracing() != MessageTracing.NONE;
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

    /** Tells dropped because the buffer was full. */
    long droppedTells() {
        return droppedTells.get();
    }

    /**
     * Members are leaving the view: forget homes on them so that the next message asks the coordinator. Runs before
     * the view is published. Control thread.
     */
    void forgetHomesOn(Collection<Member> gone) {
        for (ShardSlot slot : slots) {
            Member home = slot.home;
            if (home != null && gone.contains(home)) {
                synchronized (slot) {
                    slot.home = null;
                    if (!slot.buffer.isEmpty() && !slot.requested) {
                        slot.requested = true;
                        // once the view is applied, so that the request goes to the coordinator of the new view
                        node.control().execute(() -> node.requestShardHome(typeName, slot.shardId));
                    }
                }
            }
        }
    }

    /** Sends a message sent on this node towards its entity. */
    void route(ShardSlot slot, String entityId, Object message, @Nullable PendingAsk<?> ask) {
        slot.senders.incrementAndGet();
        try {
            Member home = slot.home;
            if (home == null) {
                synchronized (slot) {
                    home = slot.home;
                    if (home == null) {
                        buffer(slot, new ShardSlot.Buffered(entityId, message, ask, null, null), ask);
                        return;
                    }
                }
            }
            while (!sendTo(slot, home, entityId, message, ask)) {
                // the home left the view after it was read: the view's change cleared it first, so the slot now
                // holds no home (the message waits in its buffer) or a newer one
                synchronized (slot) {
                    home = slot.home;
                    if (home == null) {
                        buffer(slot, new ShardSlot.Buffered(entityId, message, ask, null, null), ask);
                        return;
                    }
                }
            }
        } finally {
            slot.senders.decrementAndGet();
        }
    }

    /**
     * Sends a message to the home read from its slot; false, having sent nothing, when that home is no longer in the
     * view. An ask is registered before the view is looked at, so a view published after the look fails it (the
     * view's change fails every ask registered for a member gone once it published the view).
     */
    private boolean sendTo(ShardSlot slot, Member home, String entityId, Object message, @Nullable PendingAsk<?> ask) {
        if (home.equals(node.self())) {
            Shard local = slot.local;
            if (local != null) {
                if (ask != null) {
                    ask.target = home;
                }
                ReplySink sink = ask == null ? ReplySink.TELL : ask;
                if (serializeLocalMessages) {
                    LocalRoundTrip.deliver(node.codec(), local, entityId, message, sink);
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
            correlationId = node.asks().register(ask);
            replyTo = node.self();
        }
        if (!node.isMember(home)) {
            if (ask != null) {
                if (node.asks().remove(correlationId) != ask) {
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
        byte[] payload = node.codec().encode(message);
        EntityEnvelope envelope = new EntityEnvelope(
                typeName,
                entityId,
                slot.shardId,
                correlationId,
                replyTo,
                payload,
                0,
                payload.length,
                messageId,
                headers);
        byte[] frame = node.protocol().encode(envelope);
        if (!(ask == null
                ? node.transport().sendTell(home, frame)
                : node.transport().send(home, frame, false))) {
            String reason = "The queue toward node " + home.name() + " hosting shard " + slot.shardId + " of "
                    + typeName + " is full: it does not keep up (settings sharding.backpressure.max-wait and"
                    + " sharding.backpressure.max-queued-bytes); nothing was sent";
            if (ask == null) {
                dropTell(reason, DropReason.BACKPRESSURE);
            } else if (node.asks().remove(correlationId) == ask) {
                ask.fail(new MemberBehindException("Ask to [" + typeName + "/" + entityId + "] refused: " + reason));
            }
        }
        return true;
    }

    /** Adds to a slot's buffer; caller holds the slot's monitor. */
    private void buffer(ShardSlot slot, ShardSlot.Buffered item, @Nullable PendingAsk<?> ask) {
        String reason = null;
        byte[] frame = item.frame();
        if (buffered.incrementAndGet() > node.settings().bufferSize()) {
            buffered.decrementAndGet();
            reason = "Buffer of region " + typeName + " on " + node.nodeName() + " is full ("
                    + node.settings().bufferSize() + " messages waiting for shard homes; setting buffer-size)";
        } else if (frame != null
                && bufferedBytes.addAndGet(frame.length) > node.settings().bufferBytes()) {
            bufferedBytes.addAndGet(-frame.length);
            buffered.decrementAndGet();
            reason = "Buffer of region " + typeName + " on " + node.nodeName() + " is full (more than "
                    + node.settings().bufferBytes() + " bytes of messages from other nodes waiting for shard homes;"
                    + " setting buffer-bytes)";
        }
        if (reason != null) {
            if (item.envelope() != null) {
                EntityEnvelope env = item.envelope();
                if (env.replyTo() != null) {
                    node.sendFailure(
                            env.replyTo(),
                            env.correlationId(),
                            FailureKind.BUFFER_FULL,
                            BufferFullException.class.getName(),
                            reason);
                } else {
                    dropTell(reason, DropReason.BUFFER_FULL);
                }
                return;
            }
            if (ask == null) {
                dropTell(reason, DropReason.BUFFER_FULL);
            }
            throw new BufferFullException(reason);
        }
        slot.buffer.addLast(item);
        if (!slot.requested) {
            slot.requested = true;
            node.control().execute(() -> node.requestShardHome(typeName, slot.shardId));
        }
    }

    /** An item left a buffer. */
    private void unbuffered(ShardSlot.Buffered item) {
        buffered.decrementAndGet();
        byte[] frame = item.frame();
        if (frame != null) {
            bufferedBytes.addAndGet(-frame.length);
        }
    }

    /** Bytes of frames from other nodes waiting for shard homes now. */
    long bufferedBytes() {
        return bufferedBytes.get();
    }

    private void dropTell(String reason, DropReason why) {
        metrics.dropped(why);
        long n = droppedTells.incrementAndGet();
        if (n == 1 || Long.bitCount(n) == 1) {
            log.warn("Dropped a tell ({} so far): {}", n, reason);
        }
    }

    // ---- frames from other nodes (transport threads) ---------------------------------------------------------

    /** An envelope arrived from another node; delivers, forwards, or buffers it. */
    void receive(EntityEnvelope env, byte[] frame, int offset, int length) {
        if (env.entityId().isEmpty() || env.entityId().length() > ShardingSettings.MAX_ENTITY_ID_LENGTH) {
            reject(
                    env,
                    "Envelope for [" + typeName + "] has an invalid entity id of "
                            + env.entityId().length() + " characters");
            return;
        }
        int expected;
        try {
            expected = shardOf(env.entityId());
        } catch (IllegalArgumentException e) {
            reject(env, String.valueOf(e.getMessage()));
            return;
        }
        if (env.shardId() != expected) {
            reject(
                    env,
                    "Envelope for [" + typeName + "/" + env.entityId() + "] names shard " + env.shardId()
                            + " but the id belongs to shard " + expected + " of " + numberOfShards
                            + " (do all nodes use the same number-of-shards and shard id function?)");
            return;
        }
        String partitioned = node.partitionedReason();
        if (partitioned != null) {
            if (env.replyTo() != null) {
                node.sendFailure(
                        env.replyTo(),
                        env.correlationId(),
                        FailureKind.PARTITIONED,
                        dev.sharding.ClusterPartitionedException.class.getName(),
                        node.partitionedException(partitioned).getMessage());
            } else {
                metrics.dropped(DropReason.PARTITIONED);
            }
            return;
        }
        ShardSlot slot = slots[env.shardId()];
        slot.senders.incrementAndGet();
        try {
            Member home = slot.home;
            if (home != null && !home.equals(node.self()) && !node.isMember(home)) {
                home = slot.home; // the view dropped it after it was read, and its change cleared it before that
            }
            if (home == null) {
                Shard local = slot.local;
                if (local != null && !local.stopping) {
                    // the owner during a handoff: entities run until every region has acknowledged
                    deliverLocally(local, env);
                    return;
                }
                synchronized (slot) {
                    home = slot.home;
                    if (home == null) {
                        // a private copy of the frame (the transport's buffer is not ours to keep), with the
                        // envelope's payload pointing into it: no second decode
                        byte[] copy = Arrays.copyOfRange(frame, offset, offset + length);
                        EntityEnvelope own = new EntityEnvelope(
                                env.typeName(),
                                env.entityId(),
                                env.shardId(),
                                env.correlationId(),
                                env.replyTo(),
                                copy,
                                env.payloadOffset() - offset,
                                env.payloadLength(),
                                env.messageId(),
                                env.headers());
                        try {
                            buffer(slot, new ShardSlot.Buffered(env.entityId(), null, null, copy, own), null);
                        } catch (BufferFullException e) {
                            // already answered or counted in buffer()
                        }
                        return;
                    }
                }
            }
            deliverReceived(slot, home, env, frame, offset, length);
        } finally {
            slot.senders.decrementAndGet();
        }
    }

    private void deliverReceived(
            ShardSlot slot, Member home, EntityEnvelope env, byte[] frame, int offset, int length) {
        if (home.equals(node.self())) {
            Shard local = slot.local;
            if (local == null) {
                reject(env, "Shard " + slot.shardId + " of " + typeName + " is not hosted on " + node.nodeName());
                return;
            }
            deliverLocally(local, env);
        } else {
            if (!node.transport().send(home, frame, offset, length, false)) {
                String reason = "The queue toward node " + home.name() + " hosting shard " + slot.shardId + " of "
                        + typeName + " is full on " + node.nodeName() + ", which forwards to it: it does not keep up";
                if (env.replyTo() != null) {
                    node.sendFailure(
                            env.replyTo(),
                            env.correlationId(),
                            FailureKind.UNAVAILABLE,
                            MemberBehindException.class.getName(),
                            reason);
                } else {
                    dropTell(reason, DropReason.BACKPRESSURE);
                }
            }
        }
    }

    private void deliverLocally(Shard local, EntityEnvelope env) {
        Object message;
        try {
            message = node.codec().decode(env.payload(), env.payloadOffset(), env.payloadLength());
        } catch (MessageRejectedException e) {
            log.warn("Rejected a message for [{}/{}]: {}", typeName, env.entityId(), e.getMessage());
            if (env.replyTo() != null) {
                node.sendFailure(
                        env.replyTo(),
                        env.correlationId(),
                        FailureKind.REJECTED,
                        MessageRejectedException.class.getName(),
                        e.getMessage());
            } else {
                metrics.dropped(DropReason.REJECTED);
            }
            return;
        }
        ReplySink sink = env.replyTo() == null
                ? ReplySink.TELL
                : new RemoteReplySink(node, env.replyTo(), env.correlationId(), typeName, env.entityId());
        String messageId = env.messageId();
        Object delivered = messageId == null ? message : new IdentifiedMessage(messageId, message);
        Map<String, String> headers = env.headers();
        if (traced && headers != null) {
            delivered = new TracedMessage(headers, delivered);
        }
        local.deliver(env.entityId(), delivered, sink);
    }

    private void reject(EntityEnvelope env, String reason) {
        log.warn("Rejected a message: {}", reason);
        if (env.replyTo() != null) {
            node.sendFailure(
                    env.replyTo(),
                    env.correlationId(),
                    FailureKind.REJECTED,
                    MessageRejectedException.class.getName(),
                    reason);
        } else {
            metrics.dropped(DropReason.REJECTED);
        }
    }

    // ---- control thread ------------------------------------------------------------------------------------

    /** The coordinator says where the shard lives: send the buffer on, in order, then publish the home. */
    void homeKnown(int shardId, Member home) {
        if (shardId < 0 || shardId >= numberOfShards) {
            log.warn("Ignoring home of shard {} of {}: out of range", shardId, typeName);
            return;
        }
        ShardSlot slot = slots[shardId];
        if (!node.members().contains(home)) {
            // a member that is gone (or not yet known here): the home is asked for again at the next retry
            log.debug(
                    "Ignoring home {} of shard {} of {}: not in the view {}", home, shardId, typeName, node.members());
            return;
        }
        if (home.equals(node.self())) {
            Shard local = slot.local;
            if (local == null || local.stopping) {
                // stale: only HostShard makes this region a home; ask again if messages wait
                log.debug("Ignoring stale home of shard {} of {} on {}", shardId, typeName, node.nodeName());
                return;
            }
        }
        publish(slot, home);
    }

    void publish(ShardSlot slot, Member home) {
        synchronized (slot) {
            ShardSlot.Buffered item;
            if (!slot.buffer.isEmpty()) {
                // what the buffer held is queued toward the home whatever its queue holds: the buffer bounded it
                SendingThreads.beginFlush();
                try {
                    while ((item = slot.buffer.pollFirst()) != null) {
                        unbuffered(item);
                        flush(slot, home, item);
                    }
                } finally {
                    SendingThreads.endFlush();
                }
            }
            slot.requested = false;
            slot.home = home;
        }
    }

    private void flush(ShardSlot slot, Member home, ShardSlot.Buffered item) {
        if (item.envelope() != null) {
            byte[] frame = Objects.requireNonNull(item.frame());
            deliverReceived(slot, home, item.envelope(), frame, 0, frame.length);
            return;
        }
        PendingAsk<?> ask = item.ask();
        if (ask != null && ask.isDone()) {
            return; // timed out while buffered
        }
        try {
            sendTo(slot, home, item.entityId(), Objects.requireNonNull(item.message()), ask);
        } catch (RuntimeException e) {
            if (ask != null) {
                ask.fail(e);
            } else {
                metrics.dropped(DropReason.STOPPED);
                log.warn("Dropped a buffered tell to [{}/{}]: {}", typeName, item.entityId(), e.getMessage());
            }
        }
    }

    /**
     * Asks again for the homes of shards with waiting messages, and frees the buffer space of asks that timed out
     * while waiting. Control thread.
     */
    void retryRequests() {
        for (ShardSlot slot : slots) {
            boolean ask;
            synchronized (slot) {
                if (slot.buffer.isEmpty()) {
                    continue;
                }
                int before = slot.buffer.size();
                slot.buffer.removeIf(b -> b.ask() != null && b.ask().isDone());
                buffered.addAndGet(slot.buffer.size() - before);
                ask = slot.home == null && !slot.buffer.isEmpty();
                if (ask) {
                    slot.requested = true;
                }
            }
            if (ask) {
                node.requestShardHome(typeName, slot.shardId);
            }
        }
    }

    /** Fails or drops everything still buffered (the node stops). */
    void dropBuffers(RuntimeException reason) {
        for (ShardSlot slot : slots) {
            synchronized (slot) {
                ShardSlot.Buffered item;
                while ((item = slot.buffer.pollFirst()) != null) {
                    unbuffered(item);
                    EntityEnvelope env = item.envelope();
                    Member replyTo = env == null ? null : env.replyTo();
                    PendingAsk<?> ask = item.ask();
                    if (ask != null) {
                        ask.fail(reason);
                    } else if (env == null || replyTo == null) {
                        metrics.dropped(
                                reason instanceof dev.sharding.ClusterPartitionedException
                                        ? DropReason.PARTITIONED
                                        : DropReason.STOPPED);
                    } else {
                        node.sendFailure(
                                replyTo,
                                env.correlationId(),
                                reason instanceof dev.sharding.ClusterPartitionedException
                                        ? FailureKind.PARTITIONED
                                        : FailureKind.UNAVAILABLE,
                                reason.getClass().getName(),
                                reason.getMessage());
                    }
                }
                slot.requested = false;
            }
        }
    }

    @Nullable
    Member homeOf(int shardId) {
        return slots[shardId].home;
    }
}
