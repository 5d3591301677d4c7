package dev.sharding.store;

import dev.sharding.ShardingException;
import dev.sharding.spi.ShardingMetrics;
import dev.sharding.spi.ShardingStore;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * a deadlock or serialization failure, and the next batch starts afresh on a new connection (after a pause that
 * grows to a second while transactions keep failing, so that an outage is not a busy loop). Futures of writes are
 * completed on a completion thread, in commit order, so that slow callbacks delay no commit; callbacks should still
 * be short. Reads and {@link #nextEpoch} run on a small pool of read threads, each on a connection of its own
 * ({@link ConnectionTasks}); the reads, and the new epochs, that queue while a thread is busy are served together by
 * the next task ({@link StateReads}, {@link EpochIncrements}).
 *
 * <h2>Durability</h2>
 * A future completes after its transaction committed, and the store makes sure a commit is on disk (or, for H2,
 * written to the file) before it returns, whatever the URL: H2's write delay (500 ms unless set, when a commit
 * returns before it is written) is set to 0 by the store on every connection it borrows to write that finds it
 * otherwise (a setting of the whole database, which H2 keeps in the file); PostgreSQL's {@code synchronous_commit}
 * is raised from {@code off} to {@code local} in every transaction of the store. Where the store cannot (an H2 user
 * without admin rights; PostgreSQL with {@code fsync=off}), it refuses to work with a
 * {@link NonDurableCommitsException} that names the setting, unless
 * {@link JdbcStoreSettings#allowNonDurableCommits()}. H2 does not force its file to the disk: a commit survives a
 * kill of any process, not a power loss of the machine. Shared by several processes ({@code AUTO_SERVER=TRUE}), the
 * pool in front of an H2 file database must also discard connections H2 reports broken (codes 90067, 90121),
 * because H2 does not reconnect a connection in a transaction, and the store writes in transactions.
 *
 * <h2>Coordinator lease and store id</h2>
 * {@link #acquireCoordinatorLease} and {@link #releaseCoordinatorLease} run on a thread of their own, each on a
 * connection of its own, so that they never wait behind a write batch or a slow read: a coordinator renews its lease
 * about twice a second and needs the answer within the lease's duration. The lease row's expiry is computed and
 * compared by the database's clock only (see the dialects for the SQL). {@link #storeId()} creates a random id in
 * the store the first time any node asks, and keeps it once read.
 *
 * <h2>Time limits</h2>
 * Every statement has the query timeout ({@link JdbcStoreSettings#queryTimeout()}); every transaction waits for row
 * locks no longer, and on PostgreSQL a node frozen within a transaction loses its session (and its locks) after it
 * too. The driver waits for any answer of the database twice as long (a network timeout, where the driver has one),
 * so that a hung server or a cut network fails operations rather than stalls the writer. Where the driver has none
 * (H2's client, talking to another process's server: {@code AUTO_SERVER} or {@code tcp://}), a watchdog aborts the
 * connection of a call that has used it for twice the query timeout (twice its limit, for a lease request), closing
 * its sockets, which frees the thread and fails the call; a connection aborted or found broken is closed and given back
 * for the pool to discard (HikariCP is told to evict it), and H2 client connections get a read timeout on their sockets
 * when their URL sets none ({@code NETWORK_TIMEOUT}). A store thread waits for a connection from the pool no longer than
 * its call's deadline ({@link ConnectionSource}): the pool may be validating a connection that the outage caught. Reads, new epochs, the store id and lease requests also fail
 * once they have waited twice the query timeout in all (a lease request: the lease duration, if shorter; a read or new
 * epoch served with others: 100 ms more, so that the task serving it fails it first, with its reason), whatever
 * the database does. A write fails when its transaction fails, which the limits above bound; and when the writer has
 * spent twice the query timeout on one batch without a connection (a pool that waits for a database that does not
 * answer), that batch and the writes queued behind it fail at once, none of them applied, rather than wait. So during
 * an outage every operation fails within about twice the query timeout, and the store works again as soon as the
 * database answers. Failures that come from a time limit say so and name the setting.
 */
public final class JdbcShardingStore extends JdbcStoreCapabilities {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    private static final Set<Capability> CAPABILITIES = Set.of(Capability.values());

    /**
     * How long {@link #checkDurability()} waits, at startup, for a database that does not answer or whose connections
     * break.
     */
    public static final Duration STARTUP_WAIT = Duration.ofSeconds(15);

    /** The longest type name the tables hold. */
    public static final int MAX_TYPE_NAME_LENGTH = 255;

    /** The longest entity id the tables hold. */
    public static final int MAX_ENTITY_ID_LENGTH = 1024;

    /** The longest cluster name, holder id and holder name the coordinator lease table holds. */
    public static final int MAX_LEASE_NAME_LENGTH = 255;

    private final DataSource dataSource;

    private final JdbcStoreSettings settings;

    private final ConnectionTasks tasks;

    /** State reads, served together on the read threads. */
    private final StateReads reads;

    /** New epochs, taken together in one transaction at a time. */
    private final EpochIncrements epochIncrements;

    private final BatchWriter writer;

    private final StoreWatchdog watchdog;

    private final ConnectionSource connections;

    /** The coordinator lease and the store id. */
    private final JdbcLeases leases;

    /** Creates the schema and checks the database's durability. */
    private final StoreSetup setup;

    private final AtomicBoolean closed = new AtomicBoolean();

    /** The database's dialect, found on the first connection. */
    private final DetectedDialect dialects;

    /** The event journal, over the writer and the read threads. */
    private final JdbcJournal journal;

    /** Where projections keep their offsets. */
    private final JdbcProjectionOffsets offsets;

    @Override
    JdbcLeases leases() {
        return leases;
    }

    @Override
    JdbcJournal journal() {
        return journal;
    }

    @Override
    JdbcProjectionOffsets offsets() {
        return offsets;
    }

    /**
     * Starts building a store.
     *
     * @param dataSource where the tables are; every node of the cluster must reach the same database
     * @return the builder
     */
    public static JdbcShardingStoreBuilder builder(DataSource dataSource) {
        return new JdbcShardingStoreBuilder(dataSource);
    }

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
     * @param settings table prefix, batch size, threads, time limits
     * @throws IllegalArgumentException when a setting is invalid
     */
    public JdbcShardingStore(DataSource dataSource, JdbcStoreSettings settings) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.settings = settings.validate();
        this.watchdog = new StoreWatchdog();
        this.connections = new ConnectionSource(dataSource);
        this.dialects = new DetectedDialect(this.settings);
        this.tasks = new ConnectionTasks(connections, settings, dialects, watchdog, dialects::mayHaveMoved);
        this.reads = new StateReads(tasks, settings.readThreads());
        this.epochIncrements = new EpochIncrements(tasks);
        this.leases = new JdbcLeases(tasks, settings.queryTimeout());
        this.setup = new StoreSetup(connections, settings, dialects);
        this.writer = new BatchWriter(
                connections,
                settings.maxBatchSize(),
                settings.batchLinger(),
                dialects,
                settings.queryTimeout(),
                watchdog,
                dialects::mayHaveMoved);
        this.journal = new JdbcJournal(writer, tasks);
        this.offsets = new JdbcProjectionOffsets(tasks, settings.tablePrefix());
        IdleTransactionSweep sweep = new IdleTransactionSweep(tasks, settings.queryTimeout());
        watchdog.every(IdleTransactionSweep.PERIOD, sweep::sweep);
        watchdog.onLongCalls(IdleTransactionSweep.blockedCallCheck(settings.queryTimeout()), sweep::sweep);
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
        setup.createSchema();
    }

    /**
     * Checks that the database's commits reach the disk before they return, or makes them do so for the store's
     * connections (H2's write delay set to 0; PostgreSQL's {@code synchronous_commit} raised in the store's
     * transactions), unless {@link JdbcStoreSettings#allowNonDurableCommits()}. The store checks this by itself
     * before its first operation and, on H2, on every connection it borrows to write; call it at startup to fail
     * early. A database that does not answer, or whose connections break, is waited for up to
     * {@link #STARTUP_WAIT} (the embedded H2 file's server moves when the node serving it stops, and a node starting
     * meanwhile finds it for a few seconds nowhere).
     *
     * @throws NonDurableCommitsException when the database acknowledges commits before they are on disk and the
     *     store cannot change that (H2: its user has no admin rights; PostgreSQL: {@code fsync=off})
     * @throws ShardingException when the database cannot be reached
     */
    public void checkDurability() {
        setup.checkDurability();
    }

    /**
     * The group commit counters so far.
     *
     * @return a snapshot of the counters
     */
    public JdbcStoreStatistics statistics() {
        return writer.statistics();
    }

    /**
     * How many operations wait in the writer's queue, not yet taken into a transaction; for tests.
     *
     * @return the count
     */
    int queuedOperations() {
        return writer.queued();
    }

    @Override
    public void recordBatchesIn(ShardingMetrics metrics) {
        writer.recordBatchesIn(Objects.requireNonNull(metrics, "metrics"));
    }

    /**
     * Every capability: applied message ids, shard epochs, the coordinator lease (arbitrated by the database) and the
     * event journal.
     */
    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public CompletableFuture<Optional<StoredState>> read(String typeName, String entityId) {
        return reads.read(typeName, entityId);
    }

    @Override
    public CompletableFuture<StoredState> write(
            String typeName, String entityId, int shardId, long epoch, byte[] state) {
        return write(typeName, entityId, shardId, epoch, state, null);
    }

    @Override
    public CompletableFuture<StoredState> write(
            String typeName, String entityId, int shardId, long epoch, byte[] state, byte @Nullable [] applied) {
        CompletableFuture<StoredState> future = new CompletableFuture<>();
        Objects.requireNonNull(state, "state");
        return StoreKeys.invalid(typeName, entityId, future)
                ? future
                : writer.submit(
                        new StoreOperation.Write(
                                typeName,
                                entityId,
                                shardId,
                                epoch,
                                state.clone(),
                                applied == null ? null : applied.clone(),
                                future,
                                System.nanoTime()),
                        future);
    }

    @Override
    public CompletableFuture<Void> delete(String typeName, String entityId, int shardId, long epoch) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        return StoreKeys.invalid(typeName, entityId, future)
                ? future
                : writer.submit(
                        new StoreOperation.Delete(typeName, entityId, shardId, epoch, future, System.nanoTime()),
                        future);
    }

    @Override
    public CompletableFuture<Long> nextEpoch(String typeName, int shardId) {
        return epochIncrements.next(typeName, shardId);
    }

    @Override
    public CompletableFuture<Void> updateRemembered(
            String typeName, int shardId, Collection<String> started, Collection<String> stopped) {
        return updateRemembered(typeName, shardId, StoreOperation.Remember.UNFENCED, started, stopped);
    }

    @Override
    public CompletableFuture<Void> updateRemembered(
            String typeName, int shardId, long epoch, Collection<String> started, Collection<String> stopped) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        List<String> add = List.copyOf(started);
        List<String> remove = List.copyOf(stopped);
        return StoreKeys.invalid(typeName, add, future) || StoreKeys.invalid(typeName, remove, future)
                ? future
                : writer.submit(
                        new StoreOperation.Remember(typeName, shardId, epoch, add, remove, future, System.nanoTime()),
                        future);
    }

    @Override
    public CompletableFuture<Set<String>> remembered(String typeName, int shardId) {
        String what = "read of the remembered entities of [" + typeName + "/shard " + shardId + "]";
        return tasks.onReader(
                what, ConnectionTasks.Mode.AUTO_COMMIT, (c, d) -> Set.copyOf(d.remembered(c, typeName, shardId)));
    }

    @Override
    public CompletableFuture<java.util.Map<Integer, Long>> currentEpochs(String typeName) {
        String what = "read of the shard epochs of [" + typeName + "]";
        return tasks.onReader(
                what,
                ConnectionTasks.Mode.AUTO_COMMIT,
                (c, d) -> d.shardEpochs().current(c, typeName));
    }

    /** The database server's clock ({@code CURRENT_TIMESTAMP}), which every node reads alike. */
    @Override
    public CompletableFuture<Long> currentTimeMillis() {
        return tasks.onReader(
                "read of the database's clock", ConnectionTasks.Mode.AUTO_COMMIT, (c, d) -> d.currentTimeMillis(c));
    }

    @Override
    public CompletableFuture<Set<Integer>> shardsWithRemembered(String typeName) {
        String what = "read of the shards of [" + typeName + "] with remembered entities";
        return tasks.onReader(
                what, ConnectionTasks.Mode.AUTO_COMMIT, (c, d) -> Set.copyOf(d.shardsWithRemembered(c, typeName)));
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
        tasks.stop(deadline);
        watchdog.stop();
        connections.stop();
    }

    /**
     * How many connections the store aborted because a call on them passed its deadline; for tests.
     *
     * @return the count
     */
    long abortedConnections() {
        return watchdog.aborted();
    }
}
