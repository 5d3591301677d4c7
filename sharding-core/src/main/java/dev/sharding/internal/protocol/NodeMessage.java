package dev.sharding.internal.protocol;

import dev.sharding.Member;

/**
 * Messages to a node as a whole: its registration, the coordinator's query of its shards, leaving, the operator's
 * requests and cluster statistics.
 */
public sealed interface NodeMessage extends ProtocolMessage
        permits RegisterAck,
                RegisterRefused,
                GetShardStates,
                RegionStopped,
                RegionStoppedAck,
                AdminReply,
                GetRegionStats,
                RegionStats {

    /**
     * Whether a node that is stopping still answers this message, so that a new coordinator or an operator need not
     * wait for it to leave.
     *
     * @return true for queries and the goodbye exchange
     */
    boolean answeredWhileStopping();

    /**
     * Hands this message to the handler's method for its type.
     *
     * @param handler the node
     * @param from the sender
     */
    void dispatchTo(Handler handler, Member from);

    @Override
    default void routeTo(Recipients recipients, Member from) {
        recipients.node(from, this);
    }

    /** A node: one method per message, so that the compiler checks none is forgotten. */
    interface Handler {

        /**
         * Handles a {@link RegisterAck}.
         *
         * @param from the sender
         * @param m the message
         */
        void onRegisterAck(Member from, RegisterAck m);

        /**
         * Handles a {@link RegisterRefused}.
         *
         * @param from the sender
         * @param m the message
         */
        void onRegisterRefused(Member from, RegisterRefused m);

        /**
         * Handles a {@link GetShardStates}.
         *
         * @param from the sender
         * @param m the message
         */
        void onGetShardStates(Member from, GetShardStates m);

        /**
         * Handles a {@link RegionStopped}.
         *
         * @param from the sender
         * @param m the message
         */
        void onRegionStopped(Member from, RegionStopped m);

        /**
         * Handles a {@link RegionStoppedAck}.
         *
         * @param from the sender
         * @param m the message
         */
        void onRegionStoppedAck(Member from, RegionStoppedAck m);

        /**
         * Handles a {@link AdminReply}.
         *
         * @param from the sender
         * @param m the message
         */
        void onAdminReply(Member from, AdminReply m);

        /**
         * Handles a {@link GetRegionStats}.
         *
         * @param from the sender
         * @param m the message
         */
        void onGetRegionStats(Member from, GetRegionStats m);

        /**
         * Handles a {@link RegionStats}.
         *
         * @param from the sender
         * @param m the message
         */
        void onRegionStats(Member from, RegionStats m);
    }
}
