package dev.sharding.internal.region;

import dev.sharding.Member;
import dev.sharding.MessageRejectedException;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.protocol.FailureKind;
import dev.sharding.internal.protocol.Reply;
import dev.sharding.spi.MessageCodec;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the outcome of an ask that came from another node back to it, out of band.
 */
final class RemoteReplySink implements ReplySink {

    private static final Logger log = LoggerFactory.getLogger(RemoteReplySink.class);

    private final MessageCodec codec;

    private final ControlPlane plane;

    private final Member replyTo;

    private final long correlationId;

    private final String typeName;

    private final String entityId;

    RemoteReplySink(
            MessageCodec codec,
            ControlPlane plane,
            Member replyTo,
            long correlationId,
            String typeName,
            String entityId) {
        this.codec = codec;
        this.plane = plane;
        this.replyTo = replyTo;
        this.correlationId = correlationId;
        this.typeName = typeName;
        this.entityId = entityId;
    }

    @Override
    public void reply(@Nullable Object value) {
        byte[] payload = null;
        if (value != null) {
            try {
                payload = codec.encode(value);
            } catch (MessageRejectedException e) {
                log.warn("Reply of [{}/{}] rejected: {}", typeName, entityId, e.getMessage());
                fail(FailureKind.REJECTED, MessageRejectedException.class.getName(), e.getMessage());
                return;
            }
        }
        // refused when the asker's node is behind: the transport counts and logs it, and the asker times out
        plane.send(replyTo, new Reply(correlationId, payload), true);
    }

    @Override
    public void fail(FailureKind kind, String className, @Nullable String message) {
        plane.sendFailure(replyTo, correlationId, kind, className, message);
    }
}
