package dev.sharding.store;

import dev.sharding.store.PortableSql.ShardKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * The new epochs of a {@link JdbcShardingStore}, taken together: the increments requested while one transaction runs
 * are taken by the next, which locks every shard's row in one statement per type (skipping rows another transaction
 * holds), sets the new epochs in one batch and commits once. After a failover the coordinator allocates every shard
 * of the lost nodes at once; one transaction each, on two read threads against a database server that had just moved,
 * they queued for seconds and timed out. A shard whose row another transaction holds (its previous owner, in the middle
 * of a write) is left out of the batch and takes its epoch alone, waiting briefly for the row as before
 * ({@link ShardEpochs#lockBriefly}); a shard without a row yet takes its first epoch inside the batch. Each epoch is
 * still exactly one more than the last one handed out for its shard, also when a batch holds two requests of one shard.
 */
final class EpochIncrements {

    /** The most shards one transaction takes epochs for: one lock statement per type. */
    static final int MAX_BATCH = PortableSql.LOCK_CHUNK;

    private final ConnectionTasks tasks;

    private final CoalescedTasks<Increment, Taken> increments;

    /**
     * Creates the epoch increments of a store: one transaction at a time.
     *
     * @param tasks the store's read threads
     */
    EpochIncrements(ConnectionTasks tasks) {
        this.tasks = tasks;
        this.increments = new CoalescedTasks<>(
                tasks,
                ConnectionTasks.Mode.TRANSACTION,
                "increment of shard epochs",
                1,
                MAX_BATCH,
                EpochIncrements::takeAll,
                this::complete);
    }

    /**
     * Takes a new epoch for a shard.
     *
     * @param typeName the entity type
     * @param shardId the shard
     * @return the new epoch, once committed
     */
    CompletableFuture<Long> next(String typeName, int shardId) {
        Increment increment = new Increment(typeName, shardId, new CompletableFuture<>());
        increments.add(increment);
        return increment.future();
    }

    /** A request for a shard's new epoch. */
    record Increment(String typeName, int shardId, CompletableFuture<Long> future) implements CoalescedTasks.Request {

        @Override
        public String what() {
            return "increment of the epoch of [" + typeName + "/shard " + shardId + "]";
        }
    }

    /**
     * What a batch's transaction did.
     *
     * @param epochs the epoch each request got, once the transaction commits
     * @param busy the requests whose shard's row another transaction held: not served
     */
    record Taken(Map<Increment, Long> epochs, List<Increment> busy) {}

    private static Taken takeAll(Connection connection, JdbcDialect dialect, List<Increment> batch)
            throws SQLException {
        Map<Increment, Long> epochs = new IdentityHashMap<>();
        List<Increment> busy = new ArrayList<>();
        SortedSet<ShardKey> shards = new TreeSet<>();
        for (Increment i : batch) {
            shards.add(new ShardKey(i.typeName(), i.shardId()));
        }
        ShardEpochs.LockedEpochs locked = dialect.shardEpochs().lockAll(connection, shards);
        // the first epochs of shards without a row, inserted in shard order: two batches inserting the same new rows
        // (two coordinators at once, or a coordinator and a node's single increment) then wait for each other in one
        // order, never in a cycle that only the lock timeout would break, failing both batches
        Map<ShardKey, Long> firstEpochs = new HashMap<>();
        for (ShardKey shard : shards) {
            if (!locked.busy().contains(shard) && locked.epochs().getOrDefault(shard, 0L) == 0) {
                firstEpochs.put(shard, dialect.nextEpoch(connection, shard.typeName(), shard.shardId()));
            }
        }
        Map<ShardKey, Long> current = new HashMap<>(locked.epochs());
        Map<ShardKey, Long> updated = new TreeMap<>();
        for (Increment i : batch) {
            ShardKey shard = new ShardKey(i.typeName(), i.shardId());
            if (locked.busy().contains(shard)) {
                busy.add(i);
                continue;
            }
            long last = current.getOrDefault(shard, 0L);
            long next;
            if (last == 0) {
                // no row when locked: its first epoch, inserted above (another node may have inserted it meanwhile)
                next = Objects.requireNonNull(firstEpochs.get(shard), "first epoch");
            } else {
                next = last + 1;
                updated.put(shard, next);
            }
            current.put(shard, next);
            epochs.put(i, next);
        }
        dialect.shardEpochs().setAll(connection, updated);
        return new Taken(epochs, busy);
    }

    private void complete(List<Increment> batch, Taken taken) {
        taken.epochs().forEach((increment, epoch) -> increment.future().complete(epoch));
        for (Increment i : taken.busy()) {
            tasks.onReader(
                            i.what(),
                            ConnectionTasks.Mode.TRANSACTION,
                            (c, d) -> d.nextEpoch(c, i.typeName(), i.shardId()))
                    .whenComplete((epoch, failure) -> {
                        if (failure == null) {
                            i.future().complete(epoch);
                        } else {
                            i.future().completeExceptionally(failure);
                        }
                    });
        }
    }
}
