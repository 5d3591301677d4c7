package dev.sharding.internal.entity;

import dev.sharding.internal.protocol.EntityTransfer;
import org.jspecify.annotations.Nullable;

/**
 * What an entity needs of the shard it lives in on this node: the shard's identity and epoch, how it ended, the state
 * carried in from its previous owner and out to the next, and its map of live entities. The region's shard implements
 * it.
 */
public interface EntityShard {

    /** The region of the shard, as its entities see it. */
    EntityRegion region();

    /** The parts the type's entities share. */
    EntityServices services();

    int shardId();

    /** The epoch of this allocation of the shard; every state write of its entities carries it. */
    long epoch();

    /**
     * Whether the shard was dropped without a handoff (its node lost its side or its lease, or a newer copy exists):
     * messages already in its entities' mailboxes fail instead of being handled. Any thread.
     */
    boolean dropped();

    /** Whether the shard's handoff passed its deadline while handlers still ran: its entities take no more messages. */
    boolean forceStopped();

    /** The state the previous owner carried for an entity, if any; taken once. */
    @Nullable
    EntityTransfer takeTransfer(String entityId);

    /** Records the stored state of an entity stopped here, for the next owner. */
    void stoppedWith(EntityTransfer transfer);

    /** A passivated cell leaves the shard's map. */
    void remove(EntityCell cell);
}
