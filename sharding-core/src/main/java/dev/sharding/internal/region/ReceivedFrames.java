package dev.sharding.internal.region;

import dev.sharding.Member;
import dev.sharding.MemberBehindException;
import dev.sharding.MessageRejectedException;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.entity.IdentifiedMessage;
import dev.sharding.internal.entity.TracedMessage;
import dev.sharding.internal.protocol.EntityEnvelope;
import dev.sharding.spi.EntityTypeMetrics.DropReason;
import dev.sharding.spi.MessageTracing;
import java.util.Arrays;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frames of one region's entity type from other nodes (transport threads): each envelope is checked, then delivered
 * into its entity's mailbox when its shard lives here, forwarded when the slot knows another home, or buffered in the
 * slot while the home is unknown. Frames are forwarded as they came, with no second encode.
 */
final class ReceivedFrames {

    private static final Logger log = LoggerFactory.getLogger(ReceivedFrames.class);

    private final RegionHost node;

    private final String typeName;

    private final ShardSlot[] slots;

    private final ShardRouter router;

    private final Refusals refusals;

    /** Read once: whether the node traces, so that only then are an envelope's headers carried to its entity. */
    private final boolean traced;

    ReceivedFrames(RegionHost node, String typeName, ShardSlot[] slots, ShardRouter router, Refusals refusals) {
        this.node = node;
        this.typeName = typeName;
        this.slots = slots;
        this.router = router;
        this.refusals = refusals;
        this.traced = node.services().tracing() != MessageTracing.NONE;
    }

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
            expected = router.shardOf(env.entityId());
        } catch (IllegalArgumentException e) {
            reject(env, String.valueOf(e.getMessage()));
            return;
        }
        if (env.shardId() != expected) {
            reject(
                    env,
                    "Envelope for [" + typeName + "/" + env.entityId() + "] names shard " + env.shardId()
                            + " but the id belongs to shard " + expected + " of " + slots.length
                            + " (do all nodes use the same number-of-shards and shard id function?)");
            return;
        }
        String partitioned = node.serving().partitionedReason();
        if (partitioned != null) {
            refuse(env, node.serving().partitionedException(partitioned), DropReason.PARTITIONED);
            return;
        }
        ShardSlot slot = slots[env.shardId()];
        slot.enterSend();
        try {
            Member home = slot.home();
            if (home != null && !home.equals(node.view().self()) && !node.view().isMember(home)) {
                home = slot.home(); // the view dropped it after it was read, and its change cleared it before that
            }
            if (home == null) {
                Shard local = slot.local();
                if (local != null && !local.stopping()) {
                    // the owner during a handoff: entities run until every region has acknowledged
                    deliverLocally(local, env);
                    return;
                }
                home = slot.homeOrBuffer(privateCopy(env, frame, offset, length), router);
                if (home == null) {
                    return; // buffered, or refused
                }
            }
            deliverReceived(slot, home, env, frame, offset, length);
        } finally {
            slot.leaveSend();
        }
    }

    /**
     * A private copy of the frame (the transport's buffer is not ours to keep), with the envelope's payload pointing
     * into it: no second decode.
     */
    private static Buffered.Forwarded privateCopy(EntityEnvelope env, byte[] frame, int offset, int length) {
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
        return new Buffered.Forwarded(copy, own);
    }

    /** Delivers a received envelope here, or forwards its frame, to the home read from its slot. */
    void deliverReceived(ShardSlot slot, Member home, EntityEnvelope env, byte[] frame, int offset, int length) {
        if (home.equals(node.view().self())) {
            Shard local = slot.local();
            if (local == null) {
                reject(
                        env,
                        "Shard " + slot.shardId() + " of " + typeName + " is not hosted on "
                                + node.view().nodeName());
                return;
            }
            deliverLocally(local, env);
        } else if (!node.services().transport().send(home, frame, offset, length, false)) {
            refuse(
                    env,
                    new MemberBehindException("The queue toward node " + home.name() + " hosting shard "
                            + slot.shardId() + " of " + typeName + " is full on "
                            + node.view().nodeName()
                            + ", which forwards to it: it does not keep up"),
                    DropReason.BACKPRESSURE);
        }
    }

    private void deliverLocally(Shard local, EntityEnvelope env) {
        Object message;
        try {
            message = node.services().codec().decode(env.payload(), env.payloadOffset(), env.payloadLength());
        } catch (MessageRejectedException e) {
            log.warn("Rejected a message for [{}/{}]: {}", typeName, env.entityId(), e.getMessage());
            refuse(env, e, DropReason.REJECTED);
            return;
        }
        ReplySink sink = senderOf(env);
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
        refuse(env, new MessageRejectedException(reason), DropReason.REJECTED);
    }

    /** Refuses a received message ({@link Refusals}). */
    void refuse(EntityEnvelope env, RuntimeException reason, DropReason why) {
        refusals.refuse(senderOf(env), reason, why);
    }

    /** Where the outcome of a received message goes: back to the node that asked, or nowhere for a tell. */
    private ReplySink senderOf(EntityEnvelope env) {
        Member replyTo = env.replyTo();
        return replyTo == null
                ? ReplySink.TELL
                : new RemoteReplySink(
                        node.services().codec(), node.plane(), replyTo, env.correlationId(), typeName, env.entityId());
    }
}
