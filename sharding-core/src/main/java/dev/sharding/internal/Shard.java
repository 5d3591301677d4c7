package dev.sharding.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A shard hosted by this node: the live entities of its ids. Entities are created on their first message.
 */
final class Shard {

    private final Region<?> region;

    private final int shardId;

    private final ConcurrentHashMap<String, EntityCell> cells = new ConcurrentHashMap<>();

    /** Set when the shard stops: no message is delivered into it any more. */
    volatile boolean stopping;

    Shard(Region<?> region, int shardId) {
        this.region = region;
        this.shardId = shardId;
    }

    Region<?> region() {
        return region;
    }

    int shardId() {
        return shardId;
    }

    void deliver(String entityId, Object message, ReplySink sink) {
        EntityCell cell = cells.get(entityId);
        if (cell == null) {
            cell = cells.computeIfAbsent(entityId, id -> new EntityCell(this, id));
        }
        cell.enqueue(new EntityCell.Delivery(message, sink));
    }

    int entityCount() {
        return cells.size();
    }

    List<String> entityIds() {
        return new ArrayList<>(cells.keySet());
    }

    /**
     * Stops every entity after the messages already in its mailbox; completes when all have stopped. The caller has
     * made sure nothing is delivered into the shard any more.
     */
    CompletableFuture<Void> stop() {
        stopping = true;
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (EntityCell cell : cells.values()) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            cell.enqueue(new EntityCell.Delivery(new EntityCell.StopSignal(() -> done.complete(null)),
                    ReplySink.TELL));
            all.add(done);
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    /** Marks entities that did not stop in time as stopped: they take no more messages. */
    int forceStop() {
        int n = 0;
        for (EntityCell cell : cells.values()) {
            if (!cell.isStopped()) {
                cell.forceStop();
                n++;
            }
        }
        return n;
    }
}
