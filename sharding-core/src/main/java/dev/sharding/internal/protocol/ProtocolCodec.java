package dev.sharding.internal.protocol;

import dev.sharding.internal.codec.KnownStrings;
import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Frames protocol messages: a magic byte, a version byte, the message's tag, then its fields. Anything else is a
 * {@link MalformedFrameException}.
 */
public final class ProtocolCodec {

    /** The first byte of every frame. */
    public static final int MAGIC = 0x5D;

    /**
     * The protocol version: 3 since members send their profile (application version and roles), 4 since an envelope
     * may carry a message id and carried entity state the ids of the messages the entity applied, 5 since
     * {@code RegionStats} carries the recent rebalance rounds, 6 since an envelope may carry headers
     * ({@link EnvelopeHeaders}), 7 since {@code RegionStats} carries the members the coordinator refused
     * ({@link RefusedMember}) and the number of rounds of each recent rebalance, 8 since a {@link LeasePong} says
     * how long ago the member last answered another coordinator.
     */
    public static final int VERSION = 8;

    private final int maxPayloadSize;

    private final KnownStrings typeNames;

    private final WireWriter.Scratch scratch = new WireWriter.Scratch();

    /**
     * Creates a codec.
     *
     * @param maxPayloadSize the largest payload accepted in an envelope or reply
     */
    public ProtocolCodec(int maxPayloadSize) {
        this(maxPayloadSize, KnownStrings.none());
    }

    /**
     * Creates a codec that reads the given entity type names without making new strings.
     *
     * @param maxPayloadSize the largest payload accepted in an envelope or reply
     * @param typeNames the entity type names envelopes are expected to carry
     */
    public ProtocolCodec(int maxPayloadSize, KnownStrings typeNames) {
        this.maxPayloadSize = maxPayloadSize;
        this.typeNames = typeNames;
    }

    /**
     * Encodes a message.
     *
     * @param message the message
     * @return the frame
     */
    public byte[] encode(ProtocolMessage message) {
        WireWriter out = scratch.acquire();
        try {
            out.byte8(MAGIC).byte8(VERSION).byte8(message.tag());
            message.writeTo(out);
            return out.toByteArray();
        } finally {
            scratch.release(out);
        }
    }

    /**
     * Decodes a frame.
     *
     * @param buf the array
     * @param offset where the frame starts
     * @param length its length
     * @return the message; an envelope's payload is a slice of {@code buf}
     * @throws MalformedFrameException if the frame is not one this codec wrote
     */
    public ProtocolMessage decode(byte[] buf, int offset, int length) {
        WireReader in = new WireReader(buf, offset, length);
        int magic = in.byte8();
        if (magic != MAGIC) {
            throw new MalformedFrameException("Not a sharding frame (magic " + magic + ")");
        }
        int version = in.byte8();
        if (version != VERSION) {
            throw new MalformedFrameException("Unsupported protocol version " + version);
        }
        int tag = in.byte8();
        ProtocolMessage m = switch (tag) {
            case Register.TAG -> Register.readFrom(in);
            case RegisterAck.TAG -> new RegisterAck();
            case GetShardStates.TAG -> new GetShardStates();
            case ShardStates.TAG -> ShardStates.readFrom(in);
            case GetShardHome.TAG -> GetShardHome.readFrom(in);
            case ShardHome.TAG -> ShardHome.readFrom(in);
            case HostShard.TAG -> HostShard.readFrom(in, maxPayloadSize);
            case ShardStarted.TAG -> ShardStarted.readFrom(in);
            case EntityEnvelope.TAG -> EntityEnvelope.readFrom(in, maxPayloadSize, typeNames);
            case Reply.TAG -> Reply.readFrom(in, maxPayloadSize);
            case Failure.TAG -> Failure.readFrom(in);
            case GetRegionStats.TAG -> GetRegionStats.readFrom(in);
            case RegionStats.TAG -> RegionStats.readFrom(in);
            case BeginHandOff.TAG -> BeginHandOff.readFrom(in);
            case BeginHandOffAck.TAG -> BeginHandOffAck.readFrom(in);
            case HandOff.TAG -> HandOff.readFrom(in);
            case ShardStopped.TAG -> ShardStopped.readFrom(in, maxPayloadSize);
            case GracefulShutdownRequest.TAG -> new GracefulShutdownRequest();
            case RegionStopped.TAG -> new RegionStopped();
            case RegionStoppedAck.TAG -> new RegionStoppedAck();
            case AdminRequest.TAG -> AdminRequest.readFrom(in);
            case AdminReply.TAG -> AdminReply.readFrom(in);
            case LeasePing.TAG -> LeasePing.readFrom(in);
            case LeasePong.TAG -> LeasePong.readFrom(in);
            case LeaseGrant.TAG -> LeaseGrant.readFrom(in);
            case LeaseRefused.TAG -> LeaseRefused.readFrom(in);
            case StopShard.TAG -> StopShard.readFrom(in);
            case RegisterRefused.TAG -> RegisterRefused.readFrom(in);
            default -> throw new MalformedFrameException("Unknown message tag " + tag);
        };
        in.expectEnd();
        return m;
    }
}
