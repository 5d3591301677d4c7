package dev.sharding.store;

import dev.sharding.spi.EventJournal;
import dev.sharding.spi.NewEvent;
import dev.sharding.spi.PersistedEvent;
import dev.sharding.spi.Recovery;
import dev.sharding.spi.SequenceConflictException;
import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.Snapshot;
import dev.sharding.spi.StaleEpochException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A store in this JVM's memory: no durability, shared only by the nodes of one JVM. For tests, and for applications
 * whose entities need no state beyond a node's life. All operations complete at once, under one monitor.
 */
public final class InMemoryShardingStore implements ShardingStore {

    private static final Set<Capability> CAPABILITIES = Set.of(Capability.values());

    private final Map<String, StoredState> states = new HashMap<>();

    private final Map<String, Long> epochs = new HashMap<>();

    private final Map<String, Set<String>> remembered = new HashMap<>();

    /** Each entity's events, the one of sequence number n at index n - 1. */
    private final Map<String, List<PersistedEvent>> journals = new HashMap<>();

    /** Every event, the one of global offset n at index n - 1. */
    private final List<PersistedEvent> journal = new ArrayList<>();

    /** Each tag's events, in offset order. */
    private final Map<String, List<PersistedEvent>> tagged = new HashMap<>();

    private final Map<String, Snapshot> snapshots = new HashMap<>();

    /** Projection offsets by "projection/slice". */
    private final Map<String, Long> projectionOffsets = new HashMap<>();

    private static String key(String typeName, String id) {
        return typeName + '\u0000' + id;
    }

    /**
     * Every capability: the store keeps applied message ids, reads epochs, arbitrates coordinator leases between the
     * nodes that share it (one cluster at a time) and keeps event journals.
     */
    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public synchronized CompletableFuture<Optional<StoredState>> read(String typeName, String entityId) {
        return CompletableFuture.completedFuture(Optional.ofNullable(states.get(key(typeName, entityId))));
    }

    @Override
    public CompletableFuture<StoredState> write(
            String typeName, String entityId, int shardId, long epoch, byte[] state) {
        return write(typeName, entityId, shardId, epoch, state, null);
    }

    @Override
    public synchronized CompletableFuture<StoredState> write(
            String typeName,
            String entityId,
            int shardId,
            long epoch,
            byte[] state,
            byte @org.jspecify.annotations.Nullable [] applied) {
        String key = key(typeName, entityId);
        StoredState old = states.get(key);
        long fence = fence(typeName, shardId, old);
        if (fence > epoch) {
            return CompletableFuture.failedFuture(new StaleEpochException(typeName, entityId, epoch, fence));
        }
        StoredState written = new StoredState(
                state.clone(), old == null ? 1 : old.version() + 1, epoch, applied == null ? null : applied.clone());
        states.put(key, written);
        return CompletableFuture.completedFuture(written);
    }

    @Override
    public synchronized CompletableFuture<Void> delete(String typeName, String entityId, int shardId, long epoch) {
        String key = key(typeName, entityId);
        StoredState old = states.get(key);
        long fence = fence(typeName, shardId, old);
        if (fence > epoch) {
            return CompletableFuture.failedFuture(new StaleEpochException(typeName, entityId, epoch, fence));
        }
        states.remove(key);
        return CompletableFuture.completedFuture(null);
    }

    /** The lowest epoch a write must have: the shard's current one, and the row's last one. */
    private long fence(String typeName, int shardId, @org.jspecify.annotations.Nullable StoredState old) {
        long shardEpoch = epochs.getOrDefault(key(typeName, Integer.toString(shardId)), 0L);
        return Math.max(shardEpoch, old == null ? 0 : old.epoch());
    }

    @Override
    public synchronized CompletableFuture<Long> nextEpoch(String typeName, int shardId) {
        return CompletableFuture.completedFuture(epochs.merge(key(typeName, Integer.toString(shardId)), 1L, Long::sum));
    }

    @Override
    public synchronized CompletableFuture<Map<Integer, Long>> currentEpochs(String typeName) {
        Map<Integer, Long> result = new HashMap<>();
        String prefix = typeName + '\u0000';
        epochs.forEach((k, epoch) -> {
            if (k.startsWith(prefix)) {
                result.put(Integer.parseInt(k.substring(prefix.length())), epoch);
            }
        });
        return CompletableFuture.completedFuture(result);
    }

    @Override
    public synchronized CompletableFuture<Void> updateRemembered(
            String typeName, int shardId, long epoch, Collection<String> started, Collection<String> stopped) {
        long shardEpoch = epochs.getOrDefault(key(typeName, Integer.toString(shardId)), 0L);
        if (shardEpoch > epoch) {
            return CompletableFuture.failedFuture(
                    new StaleEpochException(typeName, "shard " + shardId, epoch, shardEpoch));
        }
        return updateRemembered(typeName, shardId, started, stopped);
    }

    @Override
    public synchronized CompletableFuture<Void> updateRemembered(
            String typeName, int shardId, Collection<String> started, Collection<String> stopped) {
        Set<String> ids = remembered.computeIfAbsent(key(typeName, Integer.toString(shardId)), k -> new HashSet<>());
        ids.addAll(started);
        ids.removeAll(stopped);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized CompletableFuture<Set<String>> remembered(String typeName, int shardId) {
        return CompletableFuture.completedFuture(
                Set.copyOf(remembered.getOrDefault(key(typeName, Integer.toString(shardId)), Set.of())));
    }

    @Override
    public synchronized CompletableFuture<Set<Integer>> shardsWithRemembered(String typeName) {
        Set<Integer> shards = new TreeSet<>();
        String prefix = typeName + '\u0000';
        remembered.forEach((k, ids) -> {
            if (k.startsWith(prefix) && !ids.isEmpty()) {
                shards.add(Integer.parseInt(k.substring(prefix.length())));
            }
        });
        return CompletableFuture.completedFuture(shards);
    }

    @Override
    public synchronized CompletableFuture<Long> clearShardingData() {
        // the epochs stay: they fence the state rows, which stay too, as do the journals (event-sourced state)
        long ids = remembered.values().stream().mapToLong(Set::size).sum();
        remembered.clear();
        return CompletableFuture.completedFuture(ids);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Appends run one at a time under the store's monitor, so offsets follow the order of the appends and no reader
     * can see a later event without the earlier ones.
     */
    @Override
    public synchronized CompletableFuture<Long> appendEvents(
            String typeName,
            String entityId,
            int shardId,
            long epoch,
            long expectedLastSequenceNr,
            List<NewEvent> events,
            byte @Nullable [] applied,
            @Nullable Snapshot snapshot) {
        try {
            Objects.requireNonNull(events, "events");
            EventJournal.checkAppend(typeName, entityId, expectedLastSequenceNr, events, snapshot);
        } catch (IllegalArgumentException | NullPointerException e) {
            return CompletableFuture.failedFuture(e);
        }
        String key = key(typeName, entityId);
        StoredState head = states.get(key);
        long fence = fence(typeName, shardId, head);
        if (fence > epoch) {
            return CompletableFuture.failedFuture(new StaleEpochException(typeName, entityId, epoch, fence));
        }
        List<PersistedEvent> mine = journals.computeIfAbsent(key, k -> new ArrayList<>());
        long last = head != null ? head.version() : mine.size();
        if (expectedLastSequenceNr != last) {
            return CompletableFuture.failedFuture(
                    new SequenceConflictException(typeName, entityId, expectedLastSequenceNr, last));
        }
        Instant now = Instant.now();
        long sequenceNr = last;
        for (NewEvent e : events) {
            PersistedEvent event = new PersistedEvent(
                    typeName,
                    entityId,
                    ++sequenceNr,
                    journal.size() + 1L,
                    shardId,
                    e.eventType(),
                    e.eventVersion(),
                    e.payload().clone(),
                    e.tags(),
                    now);
            mine.add(event);
            journal.add(event);
            e.tags()
                    .forEach(tag ->
                            tagged.computeIfAbsent(tag, t -> new ArrayList<>()).add(event));
        }
        if (snapshot != null) {
            snapshots.put(
                    key, new Snapshot(snapshot.sequenceNr(), snapshot.payload().clone()));
        }
        states.put(key, new StoredState(new byte[0], sequenceNr, epoch, applied == null ? null : applied.clone()));
        return CompletableFuture.completedFuture(sequenceNr);
    }

    @Override
    public synchronized CompletableFuture<Recovery> recover(String typeName, String entityId) {
        String key = key(typeName, entityId);
        Snapshot snapshot = snapshots.get(key);
        StoredState head = states.get(key);
        List<PersistedEvent> mine = journals.getOrDefault(key, List.of());
        long last = head != null ? head.version() : mine.size();
        long after = snapshot == null ? 0 : snapshot.sequenceNr();
        List<PersistedEvent> events = new ArrayList<>();
        for (long n = after + 1; n <= Math.min(last, mine.size()); n++) {
            events.add(copy(mine.get((int) n - 1)));
        }
        return CompletableFuture.completedFuture(new Recovery(
                snapshot == null
                        ? null
                        : new Snapshot(snapshot.sequenceNr(), snapshot.payload().clone()),
                events,
                last,
                head == null ? 0 : head.epoch(),
                head == null || head.applied() == null ? null : head.applied().clone()));
    }

    @Override
    public synchronized CompletableFuture<List<PersistedEvent>> eventsOf(
            String typeName, String entityId, long fromSequenceNr, int maxCount) {
        try {
            EventJournal.checkPage(fromSequenceNr, maxCount);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        List<PersistedEvent> mine = journals.getOrDefault(key(typeName, entityId), List.of());
        return page(mine, (int) Math.min(mine.size(), Math.max(0, fromSequenceNr - 1)), maxCount, e -> true);
    }

    @Override
    public synchronized CompletableFuture<List<PersistedEvent>> eventsByTag(
            String tag, long afterOffset, int maxCount) {
        try {
            EventJournal.checkPage(afterOffset, maxCount);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        List<PersistedEvent> events = tagged.getOrDefault(tag, List.of());
        int from = 0;
        int to = events.size();
        while (from < to) {
            int mid = (from + to) >>> 1;
            if (events.get(mid).globalOffset() <= afterOffset) {
                from = mid + 1;
            } else {
                to = mid;
            }
        }
        return page(events, from, maxCount, e -> true);
    }

    @Override
    public synchronized CompletableFuture<List<PersistedEvent>> eventsBySlice(
            String typeName, int minShardId, int maxShardId, long afterOffset, int maxCount) {
        try {
            EventJournal.checkPage(afterOffset, maxCount);
            if (minShardId < 0 || maxShardId < minShardId) {
                throw new IllegalArgumentException("A slice of [" + typeName + "] from shard " + minShardId
                        + " to shard " + maxShardId + " is empty or negative");
            }
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return page(
                journal,
                (int) Math.min(journal.size(), afterOffset),
                maxCount,
                e -> e.typeName().equals(typeName) && e.shardId() >= minShardId && e.shardId() <= maxShardId);
    }

    @Override
    public synchronized CompletableFuture<Long> lastGlobalOffset() {
        return CompletableFuture.completedFuture((long) journal.size());
    }

    @Override
    public synchronized CompletableFuture<Long> projectionOffset(String projection, int slice) {
        return CompletableFuture.completedFuture(projectionOffsets.getOrDefault(projection + "/" + slice, 0L));
    }

    @Override
    public synchronized CompletableFuture<Boolean> saveProjectionOffset(
            String projection, int slice, long expected, long offset) {
        if (offset < expected) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "The offset of projection " + projection + "/" + slice + " may only move forward"));
        }
        String key = projection + "/" + slice;
        if (projectionOffsets.getOrDefault(key, 0L) != expected) {
            return CompletableFuture.completedFuture(false);
        }
        projectionOffsets.put(key, offset);
        return CompletableFuture.completedFuture(true);
    }

    private static CompletableFuture<List<PersistedEvent>> page(
            List<PersistedEvent> events, int from, int maxCount, Predicate<PersistedEvent> wanted) {
        List<PersistedEvent> page = new ArrayList<>();
        for (int i = from; i < events.size() && page.size() < maxCount; i++) {
            if (wanted.test(events.get(i))) {
                page.add(copy(events.get(i)));
            }
        }
        return CompletableFuture.completedFuture(page);
    }

    /** An event with a payload of the reader's own. */
    private static PersistedEvent copy(PersistedEvent e) {
        return new PersistedEvent(
                e.typeName(),
                e.entityId(),
                e.sequenceNr(),
                e.globalOffset(),
                e.shardId(),
                e.eventType(),
                e.eventVersion(),
                e.payload().clone(),
                e.tags(),
                e.writtenAt());
    }

    /** The coordinator leases, one per cluster name; guarded by this store's monitor. */
    private final InMemoryLeases leases = new InMemoryLeases();

    @Override
    public synchronized CompletableFuture<CoordinatorLease> acquireCoordinatorLease(
            String clusterName, String holderId, String holderName, java.time.Duration duration) {
        return CompletableFuture.completedFuture(
                leases.acquire(clusterName, holderId, holderName, duration, System.nanoTime()));
    }

    @Override
    public synchronized CompletableFuture<Void> releaseCoordinatorLease(String clusterName, String holderId) {
        leases.release(clusterName, holderId);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void close() {}
}
