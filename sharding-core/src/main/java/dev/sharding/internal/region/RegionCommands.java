package dev.sharding.internal.region;

import dev.sharding.Member;
import dev.sharding.internal.protocol.BeginHandOff;
import dev.sharding.internal.protocol.BeginHandOffAck;
import dev.sharding.internal.protocol.HandOff;
import dev.sharding.internal.protocol.HostShard;
import dev.sharding.internal.protocol.RegionMessage;
import dev.sharding.internal.protocol.ShardHome;
import dev.sharding.internal.protocol.ShardStarted;
import dev.sharding.internal.protocol.StopShard;

/**
 * The messages to one region, on the control thread: the coordinator's commands about a shard's home and handoff,
 * and the other regions' acknowledgements of a handoff this node's shard is in.
 */
public final class RegionCommands implements RegionMessage.Handler {

    private final Region<?> region;

    private final ControlPlane plane;

    public RegionCommands(Region<?> region, ControlPlane plane) {
        this.region = region;
        this.plane = plane;
    }

    @Override
    public void onShardHome(Member from, ShardHome m) {
        region.homeKnown(m.shardId(), m.home());
    }

    @Override
    public void onHostShard(Member from, HostShard m) {
        if (region.hostShard(m.shardId(), m.epoch(), m.transferEpoch(), m.transfer())) {
            plane.send(from, new ShardStarted(m.typeName(), m.shardId()), false);
        }
    }

    @Override
    public void onStopShard(Member from, StopShard m) {
        region.hosting().stopShard(m.shardId(), m.epoch());
    }

    @Override
    public void onBeginHandOff(Member from, BeginHandOff m) {
        region.handOffs().begin(m.shardId(), m.owner());
    }

    @Override
    public void onBeginHandOffAck(Member from, BeginHandOffAck m) {
        region.handOffs().acknowledged(from, m.shardId());
    }

    @Override
    public void onHandOff(Member from, HandOff m) {
        region.handOffs().handOff(m.shardId(), m.regions());
    }
}
