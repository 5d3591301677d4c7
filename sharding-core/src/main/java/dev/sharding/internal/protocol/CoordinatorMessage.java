package dev.sharding.internal.protocol;

import dev.sharding.Member;

/** Messages to the coordinator, from the regions of the members of its view. */
public sealed interface CoordinatorMessage extends ProtocolMessage
        permits Register, ShardStates, GetShardHome, ShardStarted, ShardStopped, GracefulShutdownRequest, AdminRequest {

    /**
     * Hands this message to the handler's method for its type.
     *
     * @param handler the coordinator
     * @param from the sender
     */
    void dispatchTo(Handler handler, Member from);

    @Override
    default void routeTo(Recipients recipients, Member from) {
        recipients.coordinator(from, this);
    }

    /** The coordinator: one method per message, so that the compiler checks none is forgotten. */
    interface Handler {

        /**
         * Handles a {@link Register}.
         *
         * @param from the sender
         * @param m the message
         */
        void onRegister(Member from, Register m);

        /**
         * Handles a {@link ShardStates}.
         *
         * @param from the sender
         * @param m the message
         */
        void onShardStates(Member from, ShardStates m);

        /**
         * Handles a {@link GetShardHome}.
         *
         * @param from the sender
         * @param m the message
         */
        void onGetShardHome(Member from, GetShardHome m);

        /**
         * Handles a {@link ShardStarted}.
         *
         * @param from the sender
         * @param m the message
         */
        void onShardStarted(Member from, ShardStarted m);

        /**
         * Handles a {@link ShardStopped}.
         *
         * @param from the sender
         * @param m the message
         */
        void onShardStopped(Member from, ShardStopped m);

        /**
         * Handles a {@link GracefulShutdownRequest}.
         *
         * @param from the sender
         * @param m the message
         */
        void onGracefulShutdownRequest(Member from, GracefulShutdownRequest m);

        /**
         * Handles a {@link AdminRequest}.
         *
         * @param from the sender
         * @param m the message
         */
        void onAdminRequest(Member from, AdminRequest m);
    }
}
