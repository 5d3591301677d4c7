package dev.sharding.internal.entity;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

/**
 * Entities whose message waits for the node to serve again (the node's serving gate), and running them again.
 *
 * <p>An entity parks after it found the node not serving; meanwhile the node may serve again, or its shard may be
 * dropped, and either runs every parked entity once. So an entity looks again at both once it is in the queue, and
 * runs at once if either happened: otherwise one that parked just after such a run would wait for the next one (its
 * object alive and its message unanswered until the node served again, after a partition healed).
 */
public final class ParkedEntities {

    /** What parks: an entity with a message waiting. */
    interface Parked {

        /** Whether the entity's shard was dropped without a handoff. */
        boolean shardDropped();

        /** Runs the entity's mailbox again. */
        void resume();
    }

    private final ConcurrentLinkedQueue<Parked> parked = new ConcurrentLinkedQueue<>();

    private final BooleanSupplier serving;

    /** @param serving whether the node serves now */
    public ParkedEntities(BooleanSupplier serving) {
        this.serving = serving;
    }

    /** An entity waits for the node to serve again. Entity threads. */
    public void park(Parked entity) {
        parked.add(entity);
        if ((serving.getAsBoolean() || entity.shardDropped()) && parked.remove(entity)) {
            entity.resume(); // the node served again meanwhile, or the shard was dropped
        }
    }

    /** Runs every waiting entity again: the node serves again, or shards were dropped. Any thread. */
    public void resumeAll() {
        Parked entity;
        while ((entity = parked.poll()) != null) {
            entity.resume();
        }
    }

    /** Entities waiting now. */
    int size() {
        return parked.size();
    }
}
