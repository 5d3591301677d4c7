package dev.sharding.internal.region;

import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.entity.CellTable;
import dev.sharding.internal.entity.Delivery;
import dev.sharding.internal.entity.EntityCell;
import dev.sharding.internal.entity.EntityRegion;
import dev.sharding.internal.entity.EntityServices;
import dev.sharding.internal.entity.EntityShard;
import dev.sharding.internal.entity.Signal;
import dev.sharding.internal.protocol.EntityTransfer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A shard hosted by this node: the live entities of its ids. Entities are created on their first message, and see
 * their shard and region only as {@link EntityShard} and {@link EntityRegion}.
 */
final class Shard implements EntityShard {

    private final EntityRegion region;

    private final EntityServices services;

    private final int shardId;

    private final CellTable cells = new CellTable();

    /** Makes a cell of this shard; one instance, so that a message that finds its cell allocates nothing for it. */
    private final Function<String, EntityCell> newCell = id -> new EntityCell(this, id);

    private final long epoch;

    /** State carried from the previous owner, taken by each entity when it starts here. */
    private final ConcurrentHashMap<String, EntityTransfer> transferIn = new ConcurrentHashMap<>();

    /** State of the entities stopped here, for the next owner. */
    private final ConcurrentHashMap<String, EntityTransfer> transferOut = new ConcurrentHashMap<>();

    /** Set when the shard stops: no message is delivered into it any more. */
    private volatile boolean stopping;

    /** Set when the shard is dropped without a handoff ({@link #dropped}). */
    private volatile boolean dropped;

    /**
     * Set when the shard's handoff passed its deadline while handlers still ran: its entities take no more messages,
     * and each is destroyed when its stop signal is reached.
     */
    private volatile boolean forceStopped;

    Shard(EntityRegion region, EntityServices services, int shardId, long epoch, List<EntityTransfer> transfer) {
        this.region = region;
        this.services = services;
        this.shardId = shardId;
        this.epoch = epoch;
        for (EntityTransfer t : transfer) {
            transferIn.put(t.entityId(), t);
        }
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    @Nullable
    public EntityTransfer takeTransfer(String entityId) {
        return transferIn.remove(entityId);
    }

    @Override
    public void stoppedWith(EntityTransfer transfer) {
        transferOut.put(transfer.entityId(), transfer);
    }

    /** The stored state of every entity stopped here, and of those carried here but never started. */
    List<EntityTransfer> transferOut() {
        Map<String, EntityTransfer> all = new HashMap<>(transferIn);
        all.putAll(transferOut);
        return List.copyOf(all.values());
    }

    @Override
    public EntityRegion region() {
        return region;
    }

    @Override
    public EntityServices services() {
        return services;
    }

    @Override
    public int shardId() {
        return shardId;
    }

    void deliver(String entityId, Object message, ReplySink sink) {
        Delivery delivery = new Delivery(message, sink);
        while (true) {
            EntityCell cell = cells.getOrAdd(entityId, newCell);
            if (cell.enqueue(delivery)) {
                return;
            }
            // the cell retired after passivation: the next one is a new incarnation
        }
    }

    @Override
    public void remove(EntityCell cell) {
        cells.remove(cell);
    }

    /** Live cells, for the passivation sweep. */
    java.util.Collection<EntityCell> cells() {
        return cells.values();
    }

    int entityCount() {
        int n = 0;
        for (EntityCell c : cells.values()) {
            if (c.isActive()) {
                n++;
            }
        }
        return n;
    }

    List<String> entityIds() {
        List<String> ids = new ArrayList<>();
        for (EntityCell c : cells.snapshot()) {
            if (c.isActive()) {
                ids.add(c.entityId());
            }
        }
        return ids;
    }

    @Override
    public boolean dropped() {
        return dropped;
    }

    /** Whether the shard stops: no message is delivered into it any more. Any thread. */
    boolean stopping() {
        return stopping;
    }

    /**
     * Marks the shard as stopping, before its entities are asked to stop: from now on nothing is delivered into it
     * (the router sends its messages on, or buffers them, instead). {@link #stop()} and {@link #drop()} mark it too.
     */
    void stopDelivering() {
        stopping = true;
    }

    /** Drops the shard without a handoff: nothing is delivered into it any more, and its messages fail. */
    void drop() {
        dropped = true;
        stopping = true;
    }

    /**
     * Stops every entity after the messages already in its mailbox; completes when all have stopped. The caller has
     * made sure nothing is delivered into the shard any more.
     *
     * <p>The stop signals are put by tasks on the entity executor, {@link #STOP_CHUNK} cells at a time, not by the
     * caller: a shard may hold a hundred thousand entities and a node many such shards, and the caller is the control
     * thread, which must go on renewing leases and answering the coordinator while they stop (putting the signals of
     * 10 million entities held it for over a minute, and the other node took it for dead). The cells share one signal
     * and one count, so that stopping an idle entity costs its mailbox one node and nothing else.
     */
    CompletableFuture<Void> stop() {
        stopping = true;
        CompletableFuture<Void> done = new CompletableFuture<>();
        services.executor().execute(new Stopping(done));
        return done;
    }

    /** The most cells one task of {@link #stop()} signals before it hands the rest to a task of its own. */
    static final int STOP_CHUNK = 1_000;

    /** The walk of {@link #stop()} over the cells, and the count of those not stopped yet. */
    private final class Stopping implements Runnable {

        /** The cells to stop, taken by the first task; the rest from {@link #next}. */
        private @Nullable List<EntityCell> cellsToStop;

        private int next;

        private final CompletableFuture<Void> done;

        /** Cells signalled and not stopped yet, plus one while the walk goes on. */
        private final AtomicInteger pending = new AtomicInteger(1);

        private final Delivery signal = new Delivery(new Signal.Stop(this::stopped), ReplySink.TELL);

        Stopping(CompletableFuture<Void> done) {
            this.done = done;
        }

        @Override
        public void run() {
            List<EntityCell> all = cellsToStop;
            if (all == null) {
                // every cell once, as the table is now (a lookup-free walk of the table might miss one as it grows)
                all = cells.snapshot();
                cellsToStop = all;
            }
            int end = Math.min(all.size(), next + STOP_CHUNK);
            for (; next < end; next++) {
                EntityCell cell = all.get(next);
                pending.incrementAndGet();
                if (!cell.enqueue(signal)) {
                    stopped(); // retired: nothing left to stop
                }
            }
            if (next < all.size()) {
                services.executor().execute(this);
            } else {
                stopped(); // the walk's own count
            }
        }

        /** One cell stopped, or the walk ended. */
        private void stopped() {
            if (pending.decrementAndGet() == 0) {
                done.complete(null);
            }
        }
    }

    /**
     * Marks the entities that did not stop in time as stopped: they take no more messages.
     *
     * @return how many had not stopped
     */
    int forceStop() {
        int n = 0;
        for (EntityCell cell : cells.values()) {
            if (!cell.isStopped()) {
                n++;
            }
        }
        forceStopped = true;
        return n;
    }

    @Override
    public boolean forceStopped() {
        return forceStopped;
    }
}
