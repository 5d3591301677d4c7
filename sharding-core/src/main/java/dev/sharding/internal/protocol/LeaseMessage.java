package dev.sharding.internal.protocol;

import dev.sharding.Member;

/** The lease exchange between the coordinator and each member (see the split-brain part of the design). */
public sealed interface LeaseMessage extends ProtocolMessage permits LeasePing, LeasePong, LeaseGrant, LeaseRefused {

    /**
     * Hands this message to the handler's method for its type.
     *
     * @param handler the lease keeper
     * @param from the sender
     */
    void dispatchTo(Handler handler, Member from);

    @Override
    default void routeTo(Recipients recipients, Member from) {
        recipients.lease(from, this);
    }

    /** The lease keeper: one method per message, so that the compiler checks none is forgotten. */
    interface Handler {

        /**
         * Handles a {@link LeasePing}.
         *
         * @param from the sender
         * @param m the message
         */
        void onPing(Member from, LeasePing m);

        /**
         * Handles a {@link LeasePong}.
         *
         * @param from the sender
         * @param m the message
         */
        void onPong(Member from, LeasePong m);

        /**
         * Handles a {@link LeaseGrant}.
         *
         * @param from the sender
         * @param m the message
         */
        void onGrant(Member from, LeaseGrant m);

        /**
         * Handles a {@link LeaseRefused}.
         *
         * @param from the sender
         * @param m the message
         */
        void onRefused(Member from, LeaseRefused m);
    }
}
