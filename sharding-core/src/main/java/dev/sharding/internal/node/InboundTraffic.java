package dev.sharding.internal.node;

import dev.sharding.Member;
import dev.sharding.MessageRejectedException;
import dev.sharding.internal.ask.AskCompletions;
import dev.sharding.internal.ask.AskRegistry;
import dev.sharding.internal.ask.PendingAsk;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.protocol.EntityEnvelope;
import dev.sharding.internal.protocol.EntityTraffic;
import dev.sharding.internal.protocol.Failure;
import dev.sharding.internal.protocol.FailureKind;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.protocol.Reply;
import dev.sharding.internal.region.LocalRegions;
import dev.sharding.internal.region.Region;
import dev.sharding.spi.MessageCodec;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frames from the transport, on its threads, never blocking: each is decoded; entity traffic goes straight into a
 * mailbox (or is forwarded) or completes the ask waiting for it, and every other message is handed to the control
 * thread. Replies and failures of asks are handed to the executor the asks' callbacks run on ({@link AskCompletions}),
 * which completes them there. A malformed frame is counted, logged (the first, then at powers of two) and dropped: the node keeps
 * serving.
 */
final class InboundTraffic implements EntityTraffic.Handler {

    private static final Logger log = LoggerFactory.getLogger(InboundTraffic.class);

    private final ProtocolCodec protocol;

    private final MessageCodec codec;

    private final LocalRegions regions;

    private final AskRegistry asks;

    private final Outbound out;

    private final BiConsumer<Member, ProtocolMessage> toControl;

    private final Supplier<String> nodeName;

    private final AtomicLong malformedFrames = new AtomicLong();

    /** Messages refused for an entity type this node does not run. */
    private final AtomicLong unknownTypes = new AtomicLong();

    InboundTraffic(
            ProtocolCodec protocol,
            MessageCodec codec,
            LocalRegions regions,
            AskRegistry asks,
            Outbound out,
            BiConsumer<Member, ProtocolMessage> toControl,
            Supplier<String> nodeName) {
        this.protocol = protocol;
        this.codec = codec;
        this.regions = regions;
        this.asks = asks;
        this.out = out;
        this.toControl = toControl;
        this.nodeName = nodeName;
    }

    /** A frame from the transport. */
    void onFrame(Member from, byte[] buffer, int offset, int length) {
        ProtocolMessage msg;
        try {
            msg = protocol.decode(buffer, offset, length);
        } catch (MalformedFrameException | IllegalArgumentException e) {
            long n = malformedFrames.incrementAndGet();
            if (n == 1 || Long.bitCount(n) == 1) {
                log.warn(
                        "Dropped a malformed frame of {} bytes from {} ({} so far): {}",
                        length,
                        from,
                        n,
                        e.getMessage());
            }
            return;
        }
        if (msg instanceof EntityTraffic traffic) {
            traffic.dispatchTo(this, from, buffer, offset, length);
        } else {
            toControl.accept(from, msg);
        }
    }

    @Override
    public void onEnvelope(Member from, EntityEnvelope env, byte[] frame, int offset, int length) {
        Region<?> region = regions.get(env.typeName());
        if (region == null) {
            refuseUnknownType(from, env);
            return;
        }
        region.receive(env, frame, offset, length);
    }

    /**
     * Refuses a message for a type this node does not run, the way a region refuses one: an ask's node hears
     * {@link MessageRejectedException}; the log says so the first time and then at powers of two.
     */
    private void refuseUnknownType(Member from, EntityEnvelope env) {
        MessageRejectedException reason =
                new MessageRejectedException("Unknown entity type " + env.typeName() + " on node " + nodeName.get());
        long n = unknownTypes.incrementAndGet();
        if (n == 1 || Long.bitCount(n) == 1) {
            log.warn("Rejected a message from {} ({} so far): {}", from, n, reason.getMessage());
        }
        Member replyTo = env.replyTo();
        if (replyTo == null) {
            return;
        }
        ReplySink asker = new ReplySink() {
            @Override
            public void reply(@Nullable Object value) {
                throw new IllegalStateException("A refused message has no reply");
            }

            @Override
            public void fail(FailureKind kind, String className, @Nullable String message) {
                out.send(replyTo, new Failure(env.correlationId(), kind, className, message), true);
            }
        };
        asker.refuse(reason);
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
                asks.completions().handOff(() -> ask.failOnCallbackThread(e));
                return;
            }
        }
        asks.completions().handOff(() -> ask.replyOnCallbackThread(value));
    }

    @Override
    public void onFailure(Member from, Failure failure) {
        PendingAsk<?> ask = asks.remove(failure.correlationId());
        if (ask != null) {
            asks.completions()
                    .handOff(() -> ask.failOnCallbackThread(failure.kind(), failure.className(), failure.message()));
        }
    }
}
