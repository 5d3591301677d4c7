package dev.sharding.internal.protocol;

import dev.sharding.internal.codec.WireWriter;

/**
 * Every message nodes exchange, one record per message. Each has a stable wire tag (never reuse or renumber one) and
 * writes its own fields; {@link ProtocolCodec} reads them back.
 */
public sealed interface ProtocolMessage
        permits Register, RegisterAck, GetShardStates, ShardStates, GetShardHome, ShardHome, HostShard, ShardStarted,
        EntityEnvelope, Reply, Failure, GetRegionStats, RegionStats, BeginHandOff, BeginHandOffAck, HandOff, ShardStopped,
        GracefulShutdownRequest, RegionStopped, RegionStoppedAck, AdminRequest, AdminReply, LeasePing, LeasePong,
        LeaseGrant, LeaseRefused, StopShard, RegisterRefused {

    /**
     * The wire tag.
     *
     * @return the tag, unique per message type
     */
    int tag();

    /**
     * Writes the fields after the tag.
     *
     * @param out the writer
     */
    void writeTo(WireWriter out);
}
