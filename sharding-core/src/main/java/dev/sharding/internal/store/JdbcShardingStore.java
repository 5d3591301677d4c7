package dev.sharding.internal.store;

import dev.sharding.ShardingException;
import dev.sharding.spi.ShardingStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link ShardingStore} in a relational database (H2 or PostgreSQL, detected from the connection), in plain JDBC
 * over a {@link DataSource}. Every node of a cluster uses the same database; {@link #createSchema()} creates the
 * tables if they are missing.
 *
 * <h2>Threads</h2>
 * Writes, deletes, remembered entity updates and {@link #clearShardingData()} are queued for one writer thread, which
 * takes everything queued (at most {@link JdbcStoreSettings#maxBatchSize()}) and commits it in one transaction
 * while new operations queue for the next (group commit, see {@link WriteBatch}). A write under a stale epoch fails
 * alone; a transaction that fails fails every operation in it, after up to two more tries when the database reports
 * a deadlock or serialization failure, and the next batch starts afresh on a new connection. Futures of writes are
 * completed on a completion thread, in commit order, so that slow callbacks delay no commit; callbacks should still
 * be short. Reads and {@link #nextEpoch} run on a small pool of read threads, each on a connection of its own.
 *
 * <h2>Durability</h2>
 * A future completes after its transaction committed. How durable a commit is depends on the database: with an H2
 * file database it needs {@code WRITE_DELAY=0} in the URL (see the product documentation for the URL it uses).
 */
public final class JdbcShardingStore implements ShardingStore {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    /** The longest type name the tables hold. */
    public static final int MAX_TYPE_NAME_LENGTH = 255;

    /** The longest entity id the tables hold. */
    public static final int MAX_ENTITY_ID_LENGTH = 1024;

    private static final int TRANSACTION_ATTEMPTS = 3;

    private final DataSource dataSource;

    private final JdbcStoreSettings settings;

    private final BlockingQueue<StoreOperation> queue = new LinkedBlockingQueue<>();

    private final ThreadPoolExecutor readers;

    private final ExecutorService completer;

    private final AtomicBoolean closed = new AtomicBoolean();

    private volatile boolean abandoned;

    private volatile @Nullable JdbcDialect dialect;

    private final AtomicLong batches = new AtomicLong();

    private final AtomicLong operations = new AtomicLong();

    private final AtomicLong failedBatches = new AtomicLong();

    private final AtomicInteger largestBatch = new AtomicInteger();

    /**
     * Creates a store with the default settings and starts its threads.
     *
     * @param dataSource where the tables are
     */
    public JdbcShardingStore(DataSource dataSource) {
        this(dataSource, JdbcStoreSettings.defaults());
    }

    /**
     * Creates a store and starts its threads; the database is first used by the first operation.
     *
     * @param dataSource where the tables are
     * @param settings table prefix, batch size, threads
     * @throws IllegalArgumentException when a setting is invalid
     */
    public JdbcShardingStore(DataSource dataSource, JdbcStoreSettings settings) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.settings = settings.validate();
        this.readers = new ThreadPoolExecutor(settings.readThreads(), settings.readThreads(), 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), StoreThreads.factory("sharding-store-read-"));
        this.completer = Executors.newSingleThreadExecutor(
                StoreThreads.factory("sharding-store-completion-"));
        Thread writer = StoreThreads.factory("sharding-store-writer-").newThread(this::writeLoop);
        writer.start();
    }

    /**
     * Creates the store's tables where they are missing; changes nothing else. Safe to call from several nodes at
     * once.
     *
     * @throws ShardingException when the database cannot be reached or refuses the script
     */
    public void createSchema() {
        try (Connection connection = dataSource.getConnection()) {
            JdbcDialect d = dialect(connection);
            JdbcTransactions.inTransaction(connection, () -> {
                try (Statement st = connection.createStatement()) {
                    for (String sql : d.schemaStatements()) {
                        st.execute(sql);
                    }
                }
                return null;
            });
        } catch (SQLException e) {
            throw new ShardingException("Could not create the sharding tables (prefix " + settings.tablePrefix()
                    + "): " + e.getMessage(), e);
        }
    }

    /**
     * The group commit counters so far.
     *
     * @return a snapshot of the counters
     */
    public JdbcStoreStatistics statistics() {
        return new JdbcStoreStatistics(batches.get(), operations.get(), failedBatches.get(), largestBatch.get());
    }

    @Override
    public CompletableFuture<Optional<StoredState>> read(String typeName, String entityId) {
        String what = "read of the state of [" + typeName + "/" + entityId + "]";
        return onReader(what, false, (c, d) -> Optional.ofNullable(d.read(c, typeName, entityId)));
    }

    @Override
    public CompletableFuture<StoredState> write(String typeName, String entityId, long epoch, byte[] state) {
        CompletableFuture<StoredState> future = new CompletableFuture<>();
        Objects.requireNonNull(state, "state");
        return invalidKey(typeName, entityId, future)
                ? future
                : enqueue(new StoreOperation.Write(typeName, entityId, epoch, state.clone(), future), future);
    }

    @Override
    public CompletableFuture<Void> delete(String typeName, String entityId, long epoch) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        return invalidKey(typeName, entityId, future)
                ? future
                : enqueue(new StoreOperation.Delete(typeName, entityId, epoch, future), future);
    }

    @Override
    public CompletableFuture<Long> nextEpoch(String typeName, int shardId) {
        String what = "increment of the epoch of [" + typeName + "/shard " + shardId + "]";
        return onReader(what, true, (c, d) -> d.nextEpoch(c, typeName, shardId));
    }

    @Override
    public CompletableFuture<Void> updateRemembered(String typeName, int shardId, Collection<String> started,
            Collection<String> stopped) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        List<String> add = List.copyOf(started);
        List<String> remove = List.copyOf(stopped);
        for (String id : add) {
            if (invalidKey(typeName, id, future)) {
                return future;
            }
        }
        for (String id : remove) {
            if (invalidKey(typeName, id, future)) {
                return future;
            }
        }
        return enqueue(new StoreOperation.Remember(typeName, shardId, add, remove, future), future);
    }

    @Override
    public CompletableFuture<Set<String>> remembered(String typeName, int shardId) {
        String what = "read of the remembered entities of [" + typeName + "/shard " + shardId + "]";
        return onReader(what, false, (c, d) -> Set.copyOf(d.remembered(c, typeName, shardId)));
    }

    @Override
    public CompletableFuture<Set<Integer>> shardsWithRemembered(String typeName) {
        String what = "read of the shards of [" + typeName + "] with remembered entities";
        return onReader(what, false, (c, d) -> Set.copyOf(d.shardsWithRemembered(c, typeName)));
    }

    @Override
    public CompletableFuture<Void> clearShardingData() {
        CompletableFuture<Void> future = new CompletableFuture<>();
        return enqueue(new StoreOperation.Clear(future), future);
    }

    /**
     * Stops accepting operations, lets the writer commit what is queued and the readers finish, then stops the
     * threads. Whatever is not done within {@link JdbcStoreSettings#closeTimeout()} fails. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        long deadline = System.nanoTime() + settings.closeTimeout().toNanos();
        StoreOperation.Stop stop = new StoreOperation.Stop(new CompletableFuture<>());
        queue.add(stop);
        if (!StoreThreads.await(stop.future(), deadline)) {
            abandoned = true;
            LOG.warn("The sharding store's writer did not finish its queued work within {}; failing the rest",
                    settings.closeTimeout());
            failQueued();
            // failQueued took the first Stop too: give the writer another to find when its transaction returns
            queue.add(new StoreOperation.Stop(new CompletableFuture<>()));
        }
        readers.shutdown();
        if (!StoreThreads.awaitTermination(readers, deadline)) {
            for (Runnable task : readers.shutdownNow()) {
                if (task instanceof ReadTask<?> read) {
                    read.fail(closedException(read.what()));
                }
            }
        }
        completer.shutdown();
        StoreThreads.awaitTermination(completer, deadline);
    }

    private <T> CompletableFuture<T> enqueue(StoreOperation op, CompletableFuture<T> future) {
        if (closed.get()) {
            future.completeExceptionally(closedException(op.describe()));
            return future;
        }
        queue.add(op);
        if (closed.get() && queue.remove(op)) {
            // close() raced with this call and may already have stopped the writer
            future.completeExceptionally(closedException(op.describe()));
        }
        return future;
    }

    private void writeLoop() {
        List<StoreOperation> drained = new ArrayList<>();
        StoreOperation.@Nullable Stop stop = null;
        while (stop == null && !abandoned) {
            try {
                drained.add(queue.take());
            } catch (InterruptedException e) {
                // nothing interrupts this thread on purpose (an interrupted H2 closes its files): carry on
                continue;
            }
            queue.drainTo(drained, settings.maxBatchSize() - 1);
            List<StoreOperation> batch = new ArrayList<>(drained.size());
            for (StoreOperation op : drained) {
                if (op instanceof StoreOperation.Stop s) {
                    stop = s;
                } else if (stop != null || abandoned) {
                    op.future().completeExceptionally(closedException(op.describe()));
                } else {
                    batch.add(op);
                }
            }
            drained.clear();
            if (!batch.isEmpty()) {
                commit(new WriteBatch(batch));
            }
        }
        failQueued();
        if (stop != null) {
            stop.future().complete(null);
        }
    }

    private void commit(WriteBatch batch) {
        @Nullable Exception failure = null;
        for (int attempt = 1; attempt <= TRANSACTION_ATTEMPTS; attempt++) {
            try (Connection connection = dataSource.getConnection()) {
                JdbcDialect d = dialect(connection);
                JdbcTransactions.inTransaction(connection, () -> {
                    batch.execute(connection, d);
                    return null;
                });
                batches.incrementAndGet();
                operations.addAndGet(batch.size());
                largestBatch.accumulateAndGet(batch.size(), Math::max);
                completeLater(batch::complete);
                return;
            } catch (SQLException e) {
                failure = e;
                if (!JdbcTransactions.isTransient(e)) {
                    break;
                }
                LOG.debug("Store transaction of {} operations rolled back (attempt {}): {}", batch.size(), attempt,
                        e.toString());
            } catch (RuntimeException e) {
                failure = e;
                break;
            }
        }
        failedBatches.incrementAndGet();
        LOG.warn("Store transaction of {} operations failed; failing all of them", batch.size(), failure);
        String reason = String.valueOf(failure);
        Exception cause = failure;
        completeLater(() -> batch.fail(reason, cause));
    }

    private void completeLater(Runnable completion) {
        try {
            completer.execute(completion);
        } catch (RejectedExecutionException e) {
            completion.run();
        }
    }

    private void failQueued() {
        List<StoreOperation> left = new ArrayList<>();
        queue.drainTo(left);
        for (StoreOperation op : left) {
            if (op instanceof StoreOperation.Stop s) {
                s.future().complete(null);
            } else {
                op.future().completeExceptionally(closedException(op.describe()));
            }
        }
    }

    private <T> CompletableFuture<T> onReader(String what, boolean transactional, ReadTask.Work<T> work) {
        CompletableFuture<T> future = new CompletableFuture<>();
        if (closed.get()) {
            future.completeExceptionally(closedException(what));
            return future;
        }
        ReadTask<T> task = new ReadTask<>(what, future, () -> {
            try (Connection connection = dataSource.getConnection()) {
                JdbcDialect d = dialect(connection);
                return transactional
                        ? JdbcTransactions.inTransaction(connection, () -> work.run(connection, d))
                        : work.run(connection, d);
            }
        });
        try {
            readers.execute(task);
        } catch (RejectedExecutionException e) {
            future.completeExceptionally(closedException(what));
        }
        return future;
    }

    private JdbcDialect dialect(Connection connection) throws SQLException {
        JdbcDialect d = dialect;
        if (d == null) {
            d = JdbcDialect.detect(connection, settings.tablePrefix());
            dialect = d;
        }
        return d;
    }

    private static boolean invalidKey(String typeName, String entityId, CompletableFuture<?> future) {
        Objects.requireNonNull(typeName, "typeName");
        Objects.requireNonNull(entityId, "entityId");
        @Nullable String problem = null;
        if (typeName.length() > MAX_TYPE_NAME_LENGTH) {
            problem = "the type name is longer than " + MAX_TYPE_NAME_LENGTH + " characters";
        } else if (entityId.length() > MAX_ENTITY_ID_LENGTH) {
            problem = "the entity id is longer than " + MAX_ENTITY_ID_LENGTH + " characters";
        } else if (typeName.indexOf('\u0000') >= 0 || entityId.indexOf('\u0000') >= 0) {
            problem = "it contains the character U+0000, which PostgreSQL cannot store in text";
        }
        if (problem != null) {
            String shown = entityId.length() > 64 ? entityId.substring(0, 64) + "..." : entityId;
            future.completeExceptionally(new IllegalArgumentException("The JDBC sharding store cannot store ["
                    + typeName + "/" + shown + "]: " + problem));
            return true;
        }
        return false;
    }

    private static ShardingException closedException(String what) {
        return new ShardingException("The sharding store was closed before the " + what + " was done");
    }
}
