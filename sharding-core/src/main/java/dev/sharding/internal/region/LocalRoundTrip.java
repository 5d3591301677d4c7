package dev.sharding.internal.region;

import dev.sharding.MessageRejectedException;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.entity.EntityStateImpl;
import dev.sharding.internal.entity.IdentifiedMessage;
import dev.sharding.internal.entity.TracedMessage;
import dev.sharding.internal.protocol.FailureKind;
import dev.sharding.spi.MessageCodec;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The test mode that makes a local delivery look like a remote one: the message goes through the codec and back
 * before its entity takes it, and so does the reply before the caller gets it. A message the codec refuses, or that
 * does not come back as a declared type, fails the ask (or is dropped with a warning, for a tell) exactly as the
 * receiving node would do with it; a reply the codec refuses fails the ask as the replying node would.
 *
 * <p>Used only when the node was built with {@code serializeLocalMessages(true)}; otherwise a local delivery hands
 * the caller's own object to the entity. The same switch makes {@link EntityStateImpl} read back each state it
 * writes.
 */
final class LocalRoundTrip {

    private static final Logger log = LoggerFactory.getLogger(LocalRoundTrip.class);

    private LocalRoundTrip() {}

    /**
     * Delivers a message to a local shard after sending it through the codec and back, with a sink that does the same
     * to the reply.
     *
     * @param codec the node's codec
     * @param local the shard
     * @param entityId the entity
     * @param message the message as sent, possibly wrapped with its headers and its message id
     * @param sink where the outcome goes
     */
    static void deliver(MessageCodec codec, Shard local, String entityId, Object message, ReplySink sink) {
        Object copy;
        try {
            copy = copyOf(codec, message);
        } catch (MessageRejectedException e) {
            log.warn("Rejected a message for entity [{}]: {}", entityId, e.getMessage());
            sink.fail(FailureKind.REJECTED, MessageRejectedException.class.getName(), e.getMessage());
            return;
        }
        local.deliver(entityId, copy, sink == ReplySink.TELL ? sink : new RoundTripSink(codec, sink));
    }

    /** The message as the entity's node would read it: the wrappers kept, what they wrap sent through the codec. */
    private static Object copyOf(MessageCodec codec, Object message) {
        if (message instanceof TracedMessage traced) {
            return new TracedMessage(traced.headers(), copyOf(codec, traced.message()));
        }
        if (message instanceof IdentifiedMessage identified) {
            return new IdentifiedMessage(identified.messageId(), roundTrip(codec, identified.message()));
        }
        return roundTrip(codec, message);
    }

    private static Object roundTrip(MessageCodec codec, Object value) {
        byte[] bytes = codec.encode(value);
        return codec.decode(bytes, 0, bytes.length);
    }

    /** Sends a reply through the codec and back before the caller's sink gets it. */
    private static final class RoundTripSink implements ReplySink {

        private final MessageCodec codec;

        private final ReplySink target;

        RoundTripSink(MessageCodec codec, ReplySink target) {
            this.codec = codec;
            this.target = target;
        }

        @Override
        public void reply(@Nullable Object value) {
            if (value == null) {
                target.reply(null);
                return;
            }
            Object copy;
            try {
                copy = roundTrip(codec, value);
            } catch (MessageRejectedException e) {
                target.fail(FailureKind.REJECTED, MessageRejectedException.class.getName(), e.getMessage());
                return;
            }
            target.reply(copy);
        }

        @Override
        public void fail(FailureKind kind, String className, @Nullable String message) {
            target.fail(kind, className, message);
        }
    }
}
