package dev.sharding.internal.protocol;

import dev.sharding.Member;

/**
 * Messages to entities and the answers to asks: the hot path. They are handled on the transport's thread, never
 * queued for the control thread, and are not checked by sender: an envelope is checked by its shard's epoch and the
 * node's lease, a reply by its correlation id.
 */
public sealed interface EntityTraffic extends ProtocolMessage permits EntityEnvelope, Reply, Failure {

    /**
     * Hands this message to the handler's method for its type.
     *
     * @param handler the node's inbound traffic
     * @param from the sender
     * @param frame the frame the message was decoded from (an envelope's payload is a slice of it)
     * @param offset where the frame starts
     * @param length its length
     */
    void dispatchTo(Handler handler, Member from, byte[] frame, int offset, int length);

    @Override
    default void routeTo(Recipients recipients, Member from) {
        throw new UnsupportedOperationException("Entity traffic is dispatched with its frame, not routed");
    }

    @Override
    default Sender sender() {
        return Sender.ANY_NODE;
    }

    /** The receiver of entity traffic: one method per message, so that the compiler checks none is forgotten. */
    interface Handler {

        /**
         * An envelope for an entity.
         *
         * @param from the sender
         * @param m the envelope
         * @param frame the frame it was decoded from
         * @param offset where the frame starts
         * @param length its length
         */
        void onEnvelope(Member from, EntityEnvelope m, byte[] frame, int offset, int length);

        /**
         * Handles a {@link Reply}.
         *
         * @param from the sender
         * @param m the message
         */
        void onReply(Member from, Reply m);

        /**
         * Handles a {@link Failure}.
         *
         * @param from the sender
         * @param m the message
         */
        void onFailure(Member from, Failure m);
    }
}
