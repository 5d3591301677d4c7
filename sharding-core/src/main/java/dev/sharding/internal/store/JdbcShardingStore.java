package dev.sharding.internal.store;

import dev.sharding.ShardingException;
import dev.sharding.spi.ShardingStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

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
 * a deadlock or serialization failure, and the next batch starts afresh on a new connection (after a pause that
 * grows to a second while transactions keep failing, so that an outage is not a busy loop). Futures of writes are
 * completed on a completion thread, in commit order, so that slow callbacks delay no commit; callbacks should still
 * be short. Reads and {@link #nextEpoch} run on a small pool of read threads, each on a connection of its own.
 *
 * <h2>Durability</h2>
 * A future completes after its transaction committed; how durable a commit is depends on the database. An H2 file
 * database needs {@code WRITE_DELAY=0} in its URL: with H2's default (500 ms) a commit returns before it is written,
 * and a process killed then loses it. Shared by several processes ({@code AUTO_SERVER=TRUE}), the pool in front of
 * it must also discard connections H2 reports broken (codes 90067, 90121), because H2 does not reconnect a
 * connection in a transaction, and the store writes in transactions.
 */
public final class JdbcShardingStore implements ShardingStore {

    /** The longest type name the tables hold. */
    public static final int MAX_TYPE_NAME_LENGTH = 255;

    /** The longest entity id the tables hold. */
    public static final int MAX_ENTITY_ID_LENGTH = 1024;

    private final DataSource dataSource;

    private final JdbcStoreSettings settings;

    private final ThreadPoolExecutor readers;

    private final BatchWriter writer;

    private final AtomicBoolean closed = new AtomicBoolean();

    private volatile @Nullable JdbcDialect dialect;

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
        this.writer = new BatchWriter(dataSource, settings.maxBatchSize(), this::dialect);
    }

    /**
     * The data source the store works on; JDBC discovery keeps its table there too.
     *
     * @return the data source
     */
    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * The prefix of the store's table names.
     *
     * @return the prefix
     */
    public String tablePrefix() {
        return settings.tablePrefix();
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
        return writer.statistics();
    }

    @Override
    public CompletableFuture<Optional<StoredState>> read(String typeName, String entityId) {
        String what = "read of the state of [" + typeName + "/" + entityId + "]";
        return onReader(what, false, (c, d) -> Optional.ofNullable(d.read(c, typeName, entityId)));
    }

    @Override
    public CompletableFuture<StoredState> write(String typeName, String entityId, int shardId, long epoch,
            byte[] state) {
        CompletableFuture<StoredState> future = new CompletableFuture<>();
        Objects.requireNonNull(state, "state");
        return invalidKey(typeName, entityId, future)
                ? future
                : writer.submit(new StoreOperation.Write(typeName, entityId, shardId, epoch, state.clone(), future), future);
    }

    @Override
    public CompletableFuture<Void> delete(String typeName, String entityId, int shardId, long epoch) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        return invalidKey(typeName, entityId, future)
                ? future
                : writer.submit(new StoreOperation.Delete(typeName, entityId, shardId, epoch, future), future);
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
        return writer.submit(new StoreOperation.Remember(typeName, shardId, add, remove, future), future);
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
    public CompletableFuture<Long> clearShardingData() {
        CompletableFuture<Long> future = new CompletableFuture<>();
        return writer.submit(new StoreOperation.Clear(future), future);
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
        writer.stop(deadline);
        readers.shutdown();
        if (!StoreThreads.awaitTermination(readers, deadline)) {
            for (Runnable task : readers.shutdownNow()) {
                if (task instanceof ReadTask<?> read) {
                    read.fail(BatchWriter.closedException(read.what()));
                }
            }
        }
    }

    private <T> CompletableFuture<T> onReader(String what, boolean transactional, ReadTask.Work<T> work) {
        CompletableFuture<T> future = new CompletableFuture<>();
        if (closed.get()) {
            future.completeExceptionally(BatchWriter.closedException(what));
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
            future.completeExceptionally(BatchWriter.closedException(what));
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
}
