package dev.sharding.internal.region;

import dev.sharding.Member;
import dev.sharding.internal.protocol.BeginHandOffAck;
import dev.sharding.internal.protocol.ShardStopped;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Both sides of a handoff in one region. As any region of the type: on {@code BeginHandOff} it forgets the shard's
 * home, so that its messages are buffered from then on, and acknowledges to the owner once no sender is between reading
 * the home and sending. As the owner: one {@link ShardHandOff} per moving shard collects the acknowledgements, stops
 * the shard and reports {@code ShardStopped}.
 *
 * <p>Control thread only.
 */
public final class RegionHandOffs {

    private final Region<?> region;

    private final RegionHost node;

    private final ShardSlot[] slots;

    RegionHandOffs(Region<?> region, RegionHost node, ShardSlot[] slots) {
        this.region = region;
        this.node = node;
        this.slots = slots;
    }

    /** A handoff begins: buffer the shard's messages, then acknowledge to the owner once no send is under way. */
    void begin(int shardId, Member owner) {
        if (shardId < 0 || shardId >= slots.length) {
            return;
        }
        ShardSlot slot = slots[shardId];
        slot.clearHome();
        whenQuiet(slot, () -> node.plane().send(owner, new BeginHandOffAck(region.typeName(), shardId), false));
    }

    /** Runs an action on the control thread once no thread is between reading the slot's home and sending. */
    void whenQuiet(ShardSlot slot, Runnable action) {
        if (slot.quiet()) {
            action.run();
        } else {
            node.plane().control().schedule(() -> whenQuiet(slot, action), 200, TimeUnit.MICROSECONDS);
        }
    }

    /** At the owner: a region acknowledged BeginHandOff. */
    void acknowledged(Member from, int shardId) {
        if (shardId < 0 || shardId >= slots.length) {
            return;
        }
        of(slots[shardId]).acknowledged(from);
    }

    /** At the owner: stop the shard once every listed region acknowledged, then report ShardStopped. */
    void handOff(int shardId, List<Member> regions) {
        if (shardId < 0 || shardId >= slots.length) {
            return;
        }
        ShardSlot slot = slots[shardId];
        if (slot.local() == null) {
            // done before, or never hosted
            node.plane().sendToCoordinator(new ShardStopped(region.typeName(), shardId, 0, List.of()));
            return;
        }
        of(slot).handOff(regions);
    }

    private ShardHandOff of(ShardSlot slot) {
        return slot.handOff(s -> new ShardHandOff(region, node, s));
    }

    /** Periodic, and when members left: handoffs past their deadline, or no longer waiting for anyone, go on. */
    public void check() {
        for (ShardSlot slot : slots) {
            ShardHandOff h = slot.handOff();
            if (h != null && h.started()) {
                h.check();
            }
        }
    }
}
