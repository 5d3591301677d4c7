package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.KnownStrings;
import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Region to region: a message for an entity. A tell has correlation id 0 and no reply address; an ask names the
 * member whose region waits for the {@link Reply} or {@link Failure}, which may differ from the sender when the
 * envelope was forwarded. The payload is the {@link dev.sharding.spi.MessageCodec} encoding of the message, kept as
 * a slice of the received frame so that forwarding needs no copy. Headers ({@link EnvelopeHeaders}) travel beside
 * the message, today the trace context of a traced message.
 *
 * @param typeName the entity type
 * @param entityId the entity id
 * @param shardId the entity's shard
 * @param correlationId the ask's id at the asking member, or 0 for a tell
 * @param replyTo the asking member, or {@code null} for a tell
 * @param payload the array holding the encoded message
 * @param payloadOffset where it starts
 * @param payloadLength its length
 * @param messageId the id the sender gave the message so that a retry applies once, or {@code null}
 * @param headers the message's headers, unmodifiable and within {@link EnvelopeHeaders}' limits, or {@code null} for
 *     none
 */
public record EntityEnvelope(
        String typeName,
        String entityId,
        int shardId,
        long correlationId,
        @Nullable Member replyTo,
        byte[] payload,
        int payloadOffset,
        int payloadLength,
        @Nullable String messageId,
        @Nullable Map<String, String> headers)
        implements EntityTraffic {

    /** Flag: the envelope names a reply address (an ask). */
    private static final int HAS_REPLY_TO = 1;

    /** Flag: the envelope carries a message id. */
    private static final int HAS_MESSAGE_ID = 2;

    /** Flag: the envelope carries a headers block (since protocol version 6). */
    private static final int HAS_HEADERS = 4;

    /**
     * An envelope without headers.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param shardId the entity's shard
     * @param correlationId the ask's id at the asking member, or 0 for a tell
     * @param replyTo the asking member, or {@code null} for a tell
     * @param payload the array holding the encoded message
     * @param payloadOffset where it starts
     * @param payloadLength its length
     * @param messageId the id the sender gave the message so that a retry applies once, or {@code null}
     */
    public EntityEnvelope(
            String typeName,
            String entityId,
            int shardId,
            long correlationId,
            @Nullable Member replyTo,
            byte[] payload,
            int payloadOffset,
            int payloadLength,
            @Nullable String messageId) {
        this(
                typeName,
                entityId,
                shardId,
                correlationId,
                replyTo,
                payload,
                payloadOffset,
                payloadLength,
                messageId,
                null);
    }

    /**
     * An envelope without a message id.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param shardId the entity's shard
     * @param correlationId the ask's id at the asking member, or 0 for a tell
     * @param replyTo the asking member, or {@code null} for a tell
     * @param payload the array holding the encoded message
     * @param payloadOffset where it starts
     * @param payloadLength its length
     */
    public EntityEnvelope(
            String typeName,
            String entityId,
            int shardId,
            long correlationId,
            @Nullable Member replyTo,
            byte[] payload,
            int payloadOffset,
            int payloadLength) {
        this(typeName, entityId, shardId, correlationId, replyTo, payload, payloadOffset, payloadLength, null, null);
    }

    /** The wire tag. */
    public static final int TAG = 9;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public void dispatchTo(Handler handler, Member from, byte[] frame, int offset, int length) {
        handler.onEnvelope(from, this, frame, offset, length);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.string(typeName)
                .string(entityId)
                .varInt(shardId)
                .int64(correlationId)
                .byte8((replyTo != null ? HAS_REPLY_TO : 0)
                        | (messageId != null ? HAS_MESSAGE_ID : 0)
                        | (headers != null ? HAS_HEADERS : 0));
        if (replyTo != null) {
            out.member(replyTo);
        }
        if (messageId != null) {
            out.string(messageId);
        }
        if (headers != null) {
            EnvelopeHeaders.write(out, headers);
        }
        out.varInt(payloadLength);
        out.write(payload, payloadOffset, payloadLength);
    }

    static EntityEnvelope readFrom(WireReader in, int maxPayload, KnownStrings typeNames) {
        String type = in.string(typeNames);
        String id = in.string();
        int shard = in.varInt();
        long corr = in.int64();
        int flags = in.byte8();
        if ((flags & ~(HAS_REPLY_TO | HAS_MESSAGE_ID | HAS_HEADERS)) != 0) {
            throw new MalformedFrameException("Bad envelope flags " + flags);
        }
        Member replyTo = (flags & HAS_REPLY_TO) != 0 ? in.member() : null;
        String messageId = (flags & HAS_MESSAGE_ID) != 0 ? in.string() : null;
        Map<String, String> headers = (flags & HAS_HEADERS) != 0 ? EnvelopeHeaders.read(in) : null;
        int len = in.blockLength(maxPayload);
        int off = in.position();
        in.skip(len);
        return new EntityEnvelope(type, id, shard, corr, replyTo, in.array(), off, len, messageId, headers);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EntityEnvelope e
                && e.typeName.equals(typeName)
                && e.entityId.equals(entityId)
                && e.shardId == shardId
                && e.correlationId == correlationId
                && Objects.equals(e.replyTo, replyTo)
                && Objects.equals(e.messageId, messageId)
                && Objects.equals(e.headers, headers)
                && Arrays.equals(
                        e.payload,
                        e.payloadOffset,
                        e.payloadOffset + e.payloadLength,
                        payload,
                        payloadOffset,
                        payloadOffset + payloadLength);
    }

    @Override
    public int hashCode() {
        return entityId.hashCode() * 31 + Long.hashCode(correlationId);
    }

    @Override
    public String toString() {
        return "EntityEnvelope[" + typeName + "/" + entityId + ", shard=" + shardId + ", corr=" + correlationId
                + ", replyTo=" + replyTo + (messageId == null ? "" : ", messageId=" + messageId)
                + (headers == null ? "" : ", headers=" + headers.keySet()) + ", " + payloadLength + " bytes]";
    }
}
