package dev.sharding.internal.entity;

/** What the runtime itself puts into an entity's mailbox, in order with the entity's messages. */
public sealed interface Signal permits Signal.Stop, Signal.Start, Signal.Passivate {

    /**
     * Tells the cell to stop after the messages before it.
     *
     * @param done run once the entity stopped
     */
    record Stop(Runnable done) implements Signal {}

    /** Starts the entity without a message (a remembered entity whose shard started). */
    enum Start implements Signal {
        /** The one signal. */
        INSTANCE
    }

    /**
     * Tells the cell to passivate its instance, if it has taken no message since {@code idleSinceMillis} (idle
     * passivation) or in any case ({@code force}, for the limit of live entities).
     *
     * @param idleSinceMillis the time on the node's coarse clock the entity must have been idle since
     * @param force whether it passivates in any case
     */
    record Passivate(long idleSinceMillis, boolean force) implements Signal {}
}
