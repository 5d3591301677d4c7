package dev.sharding.internal.entity;

import org.jspecify.annotations.Nullable;

/**
 * A link of a {@link Mailbox}'s queue: a {@link Node} that holds one delivery, or the mailbox itself, which is the
 * queue's resting link (so that an empty mailbox needs no node of its own).
 */
abstract class MailboxLink {

    /** The next link, set by the sender that put it, or by the draining thread for the resting link. */
    volatile @Nullable MailboxLink next;

    /** One delivery in a mailbox's queue. */
    static final class Node extends MailboxLink {

        /** The delivery; cleared by whoever takes it: the draining thread, or its sender taking it back. */
        @SuppressWarnings("unused") // through the mailbox's handle
        volatile @Nullable Delivery item;

        Node(Delivery item) {
            this.item = item;
        }
    }
}
