package dev.sharding.internal.protocol;

import dev.sharding.Member;

/**
 * Messages to the region of one entity type on a node: the coordinator's commands about a shard's home and handoff,
 * and the regions' acknowledgements of a handoff to the shard's owner.
 */
public sealed interface RegionMessage extends ProtocolMessage
        permits ShardHome, HostShard, StopShard, BeginHandOff, BeginHandOffAck, HandOff {

    /**
     * The entity type whose region takes the message.
     *
     * @return the type name
     */
    String typeName();

    /**
     * Hands this message to the handler's method for its type.
     *
     * @param handler the region
     * @param from the sender
     */
    void dispatchTo(Handler handler, Member from);

    @Override
    default void routeTo(Recipients recipients, Member from) {
        recipients.region(from, this);
    }

    /** A region: one method per message, so that the compiler checks none is forgotten. */
    interface Handler {

        /**
         * Handles a {@link ShardHome}.
         *
         * @param from the sender
         * @param m the message
         */
        void onShardHome(Member from, ShardHome m);

        /**
         * Handles a {@link HostShard}.
         *
         * @param from the sender
         * @param m the message
         */
        void onHostShard(Member from, HostShard m);

        /**
         * Handles a {@link StopShard}.
         *
         * @param from the sender
         * @param m the message
         */
        void onStopShard(Member from, StopShard m);

        /**
         * Handles a {@link BeginHandOff}.
         *
         * @param from the sender
         * @param m the message
         */
        void onBeginHandOff(Member from, BeginHandOff m);

        /**
         * Handles a {@link BeginHandOffAck}.
         *
         * @param from the sender
         * @param m the message
         */
        void onBeginHandOffAck(Member from, BeginHandOffAck m);

        /**
         * Handles a {@link HandOff}.
         *
         * @param from the sender
         * @param m the message
         */
        void onHandOff(Member from, HandOff m);
    }
}
