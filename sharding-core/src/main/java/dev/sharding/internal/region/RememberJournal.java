package dev.sharding.internal.region;

import dev.sharding.internal.entity.StartBackoff;
import dev.sharding.spi.ShardingStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remember-entities journal of one region: which entities of each shard are live, kept in the store so that
 * they start again, without a message, wherever and whenever their shard starts.
 *
 * <ul>
 * <li>Entity threads record each start and each passivation ({@link #started}, {@link #stopped}); nothing is written
 * then.</li>
 * <li>Every retry interval, and before a shard is handed off, the control thread writes what was recorded, per shard
 * ({@link #flush}): the latest event of each entity, one write per shard at a time, so that they commit in the order
 * of the events. A write that fails goes back to be written at the next flush, under any newer event of the same
 * entity, so that an entity's last event is always the one that ends up stored.</li>
 * <li>A shard that starts here reads its remembered ids and starts those entities ({@link #startRemembered}).</li>
 * </ul>
 */
final class RememberJournal {

    private static final Logger log = LoggerFactory.getLogger(RememberJournal.class);

    private record Event(int shardId, long epoch, String entityId, boolean started) {}

    /** A shard's events not yet stored, latest per entity, and the newest epoch they were recorded under. */
    private static final class Unflushed {
        final Map<String, Boolean> events = new LinkedHashMap<>();
        long epoch;

        void add(String entityId, boolean started, long eventEpoch) {
            events.remove(entityId); // the latest event goes last, in the order of the events
            events.put(entityId, started);
            epoch = Math.max(epoch, eventEpoch);
        }
    }

    private final String typeName;

    private final ShardingStore store;

    /** Runs a task on the control thread, or at once when the node has stopped it. */
    private final java.util.function.Consumer<Runnable> onControl;

    /** Entities started and forgotten since the last flush, in order. Any thread. */
    private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();

    /** Events taken from the queue and not yet stored, per shard, latest per entity. Control thread. */
    private final Map<Integer, Unflushed> unflushed = new HashMap<>();

    /** Per shard, the write under way. Control thread. */
    private final Map<Integer, CompletableFuture<Void>> flushing = new HashMap<>();

    /** Times the retries of failed reads of remembered entities. */
    private final java.util.concurrent.ScheduledExecutorService scheduler;

    /** The longest wait between reads of a shard's remembered entities that failed. */
    private final java.time.Duration maxBackoff;

    RememberJournal(
            String typeName,
            ShardingStore store,
            java.util.function.Consumer<Runnable> onControl,
            java.util.concurrent.ScheduledExecutorService scheduler,
            java.time.Duration maxBackoff) {
        this.typeName = typeName;
        this.store = store;
        this.onControl = onControl;
        this.scheduler = scheduler;
        this.maxBackoff = maxBackoff;
    }

    /** An entity started, on its shard's allocation {@code epoch}. Entity thread. */
    void started(int shardId, long epoch, String entityId) {
        events.add(new Event(shardId, epoch, entityId, true));
    }

    /** An entity was passivated: it is not started again. Entity thread. */
    void stopped(int shardId, long epoch, String entityId) {
        events.add(new Event(shardId, epoch, entityId, false));
    }

    /**
     * Writes what was recorded since the last flush: for one shard, or for all ({@code shardId} -1). Control thread.
     *
     * @return completes when the writes are done (failed ones included)
     */
    CompletableFuture<Void> flush(int shardId) {
        Event e;
        while ((e = events.poll()) != null) {
            unflushed.computeIfAbsent(e.shardId(), k -> new Unflushed()).add(e.entityId(), e.started(), e.epoch());
        }
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (Integer shard : new ArrayList<>(unflushed.keySet())) {
            if (shardId < 0 || shard == shardId) {
                writes.add(flushShard(shard));
            }
        }
        return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new));
    }

    private CompletableFuture<Void> flushShard(int shard) {
        CompletableFuture<Void> running = flushing.get(shard);
        if (running != null) {
            CompletableFuture<Void> next = new CompletableFuture<>();
            running.whenComplete(
                    (v, t) -> onControl.accept(() -> flushShard(shard).whenComplete((v2, t2) -> next.complete(null))));
            return next;
        }
        Unflushed shardEvents = unflushed.remove(shard);
        if (shardEvents == null || shardEvents.events.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        List<String> started = new ArrayList<>();
        List<String> stopped = new ArrayList<>();
        shardEvents.events.forEach((id, up) -> (up ? started : stopped).add(id));
        CompletableFuture<Void> done = new CompletableFuture<>();
        flushing.put(shard, done);
        CompletableFuture<Void> write;
        try {
            write = store.updateRemembered(typeName, shard, shardEvents.epoch, started, stopped);
        } catch (RuntimeException ex) {
            write = CompletableFuture.failedFuture(ex);
        }
        write.whenComplete((v, failure) -> onControl.accept(() -> {
            flushing.remove(shard);
            if (failure != null && isStale(failure)) {
                // the shard was allocated again since: its new owner keeps the set, and these changes are dropped
                log.info(
                        "Dropped {} remembered-entity changes of shard {} of {}: the shard has been allocated since"
                                + " they were recorded (epoch {})",
                        shardEvents.events.size(),
                        shard,
                        typeName,
                        shardEvents.epoch);
            } else if (failure != null) {
                log.warn(
                        "Cannot store the remembered entities of shard {} of {}; trying again: {}",
                        shard,
                        typeName,
                        failure.toString());
                Unflushed newer = unflushed.get(shard);
                if (newer != null) {
                    newer.events.forEach((id, up) -> shardEvents.add(id, up, newer.epoch));
                }
                unflushed.put(shard, shardEvents);
            }
            done.complete(null);
        }));
        return done;
    }

    private static boolean isStale(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof dev.sharding.spi.StaleEpochException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Reads the remembered ids of a shard that has just started here and starts them, unless the shard stopped
     * meanwhile.
     *
     * @param shardId the shard
     * @param stillHosted whether the shard still runs here when the ids arrive
     * @param start starts one entity
     */
    void startRemembered(
            int shardId, java.util.function.BooleanSupplier stillHosted, java.util.function.Consumer<String> start) {
        readRemembered(shardId, stillHosted, start, 1);
    }

    /**
     * Reads a shard's remembered ids and starts them; a read that fails is made again after a wait that doubles from
     * 100 ms up to {@code shard-failure-backoff}, for as long as the shard is hosted here.
     */
    private void readRemembered(
            int shardId,
            java.util.function.BooleanSupplier stillHosted,
            java.util.function.Consumer<String> start,
            int attempt) {
        if (!stillHosted.getAsBoolean()) {
            return;
        }
        CompletableFuture<java.util.Set<String>> read;
        try {
            read = store.remembered(typeName, shardId);
        } catch (RuntimeException e) {
            read = CompletableFuture.failedFuture(e);
        }
        read.whenComplete((ids, failure) -> {
            if (failure != null) {
                long delay = StartBackoff.delayMillis(attempt, maxBackoff);
                if (attempt == 1 || Integer.bitCount(attempt) == 1) {
                    log.warn(
                            "Cannot read the remembered entities of shard {} of {} (attempt {}); trying again in {}"
                                    + " ms: {}",
                            shardId,
                            typeName,
                            attempt,
                            delay,
                            failure.toString());
                }
                try {
                    scheduler.schedule(
                            () -> readRemembered(shardId, stillHosted, start, attempt + 1),
                            delay,
                            java.util.concurrent.TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.RejectedExecutionException stopped) {
                    // the node stopped
                }
                return;
            }
            if (attempt > 1) {
                log.info(
                        "Read the remembered entities of shard {} of {} after {} failed attempts",
                        shardId,
                        typeName,
                        attempt - 1);
            }
            if (!stillHosted.getAsBoolean()) {
                return;
            }
            for (String id : ids) {
                start.accept(id);
            }
        });
    }
}
