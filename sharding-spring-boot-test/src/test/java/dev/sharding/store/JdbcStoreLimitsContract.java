package dev.sharding.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardingException;
import dev.sharding.spi.ShardingStore.CoordinatorLease;
import dev.sharding.spi.ShardingStore.StoredState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The JDBC contract plus the time limits, the lease's own thread and the store id, which need a database: a row
 * lock held by another connection stands for a node frozen in a transaction, and {@link
 * dev.sharding.boot.test.store.FaultyDataSource#hold()} for a database that does not answer.
 */
abstract class JdbcStoreLimitsContract extends JdbcStoreContract {

    private static final AtomicInteger PREFIXES = new AtomicInteger();

    /**
     * A database other than {@link #dataSource()}, with nothing in it.
     *
     * @return a data source for it
     */
    protected abstract DataSource anotherDatabase();

    /** A connection that locks rows and keeps them locked until it is closed: a node frozen in a transaction. */
    private Connection frozenNodeLocking(String sql, Object... parameters) throws Exception {
        Connection frozen = dataSource().getConnection();
        frozen.setAutoCommit(false);
        try (PreparedStatement ps = frozen.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                ps.setObject(i + 1, parameters[i]);
            }
            ps.executeQuery().close();
        }
        return frozen;
    }

    private static Duration since(long start) {
        return Duration.ofNanos(System.nanoTime() - start);
    }

    @Test
    void aRowLockHeldByAFrozenNodeFailsWritesAndEpochsWithinTheQueryTimeoutNamingIt() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withQueryTimeout(Duration.ofMillis(700)));
        await(s.write(type, "locked", SHARD, 1, bytes("before")));
        await(s.nextEpoch(type, 5));
        try (Connection frozen = frozenNodeLocking(
                "SELECT * FROM sharding_entity_state WHERE type_name = ? AND" + " entity_id = ? FOR UPDATE",
                type,
                "locked")) {
            frozen.prepareStatement("SELECT * FROM sharding_shard_epoch WHERE type_name = '" + type
                            + "' AND shard_id = 5 FOR UPDATE")
                    .executeQuery()
                    .close();
            long start = System.nanoTime();
            Throwable write = failureOf(s.write(type, "locked", SHARD, 1, bytes("blocked")));
            assertThat(since(start)).as("time until the write failed").isLessThan(Duration.ofSeconds(5));
            assertThat(write)
                    .isInstanceOf(ShardingException.class)
                    .hasMessageContaining("could not commit the write of [" + type + "/locked]")
                    .hasMessageContaining("sharding.store.query-timeout allows 700ms");
            Throwable epoch = failureOf(s.nextEpoch(type, 5));
            assertThat(epoch)
                    .as("an epoch does not wait long for a row another transaction holds")
                    .isInstanceOf(ShardingException.class)
                    .hasMessageContaining("increment of the epoch of [" + type + "/shard 5]")
                    .hasMessageContaining("is held by another transaction");
            assertThat(await(s.write(type, "free", SHARD, 1, bytes("other row")))
                            .version())
                    .as("rows nobody holds are written meanwhile")
                    .isEqualTo(1);
            frozen.rollback();
        }
        assertThat(await(s.write(type, "locked", SHARD, 1, bytes("after"))).version())
                .isEqualTo(2);
        assertThat(await(s.nextEpoch(type, 5))).isEqualTo(2);
    }

    /** The epoch row of a shard, locked by another connection: its previous owner, slow in the middle of a write. */
    private Connection slowPreviousOwnerOf(int shardId) throws Exception {
        return frozenNodeLocking(
                "SELECT * FROM sharding_shard_epoch WHERE type_name = ? AND shard_id = ? FOR UPDATE", type, shardId);
    }

    @Test
    void aShardWhoseRowsAnotherTransactionHoldsWaitsAloneAndItsWritesKeepTheirOrder() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withQueryTimeout(Duration.ofSeconds(30)));
        int other = SHARD + 1;
        long epoch = await(s.nextEpoch(type, SHARD));
        long otherEpoch = await(s.nextEpoch(type, other));
        await(s.write(type, "held", SHARD, epoch, bytes("before")));
        await(s.updateRemembered(type, SHARD, List.of("held"), List.of()));
        List<CompletableFuture<?>> waiting = new ArrayList<>();
        CompletableFuture<StoredState> first;
        CompletableFuture<StoredState> second;
        try (Connection slow = slowPreviousOwnerOf(SHARD)) {
            first = s.write(type, "held", SHARD, epoch, bytes("one"));
            CompletableFuture<Void> forgotten = s.updateRemembered(type, SHARD, List.of(), List.of("held"));
            CompletableFuture<Void> gone = s.delete(type, "new", SHARD, epoch);
            second = s.write(type, "held", SHARD, epoch, bytes("two"));
            waiting.addAll(List.of(first, forgotten, gone, second));
            // the writes of every other shard go on, in batches with the held shard's and without them
            for (int i = 0; i < 3; i++) {
                assertThat(await(s.write(type, "free", other, otherEpoch, bytes("free " + i)))
                                .version())
                        .isEqualTo(i + 1);
            }
            await(s.updateRemembered(type, other, List.of("free"), List.of()));
            assertThat(failureOf(s.nextEpoch(type, SHARD)))
                    .as("a new epoch of the held shard fails rather than wait for it")
                    .hasMessageContaining("is held by another transaction");
            assertThat(waiting).as("the held shard's operations wait").noneMatch(CompletableFuture::isDone);
            slow.rollback();
        }
        assertThat(await(first).version()).isEqualTo(2);
        assertThat(await(second).version()).as("written after the first").isEqualTo(3);
        for (CompletableFuture<?> f : waiting) {
            await(f);
        }
        assertThat(text(await(s.read(type, "held")).orElseThrow())).isEqualTo("two");
        assertThat(await(s.remembered(type, SHARD)))
                .as("forgotten once the shard was free")
                .isEmpty();
        assertThat(await(s.remembered(type, other))).containsExactly("free");
        assertThat(await(s.nextEpoch(type, SHARD))).isEqualTo(epoch + 1);
    }

    @Test
    void writesOfAShardHeldLongerThanTheWriteDeadlineFailUnappliedAndTheNextOnesGoThrough() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withQueryTimeout(Duration.ofMillis(400)));
        long epoch = await(s.nextEpoch(type, SHARD));
        await(s.write(type, "held", SHARD, epoch, bytes("before")));
        try (Connection slow = slowPreviousOwnerOf(SHARD)) {
            Throwable failure = failureOf(s.write(type, "held", SHARD, epoch, bytes("never")));
            assertThat(failure)
                    .isInstanceOf(ShardingException.class)
                    .hasMessageContaining("could not apply the write of [" + type + "/held]")
                    .hasMessageContaining("another transaction held the rows of its shard")
                    .hasMessageContaining("for more than 800ms")
                    .hasMessageContaining("it was not applied");
            slow.rollback();
        }
        assertThat(await(s.write(type, "held", SHARD, epoch, bytes("after"))).version())
                .isEqualTo(2);
        assertThat(text(await(s.read(type, "held")).orElseThrow())).isEqualTo("after");
    }

    @Test
    void leaseRequestsDoNotWaitBehindAWriteBatch() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withQueryTimeout(Duration.ofSeconds(8)));
        await(s.write(type, "locked", SHARD, 1, bytes("before")));
        CompletableFuture<StoredState> stuck;
        try (Connection frozen = frozenNodeLocking(
                "SELECT * FROM sharding_entity_state WHERE type_name = ? AND" + " entity_id = ? FOR UPDATE",
                type,
                "locked")) {
            stuck = s.write(type, "locked", SHARD, 1, bytes("waits for the lock"));
            long start = System.nanoTime();
            CoordinatorLease lease = await(s.acquireCoordinatorLease(type, "a", "node a", Duration.ofSeconds(2)));
            assertThat(lease.granted()).isTrue();
            await(s.releaseCoordinatorLease(type, "a"));
            assertThat(since(start)).as("lease answered while the writer waits").isLessThan(Duration.ofSeconds(2));
            assertThat(stuck).isNotDone();
            frozen.rollback();
        }
        assertThat(await(stuck).version()).isEqualTo(2);
    }

    @Test
    void aDatabaseThatDoesNotAnswerFailsReadsWritesAndLeaseRequestsWithinTheirDeadlines() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withQueryTimeout(Duration.ofMillis(300)));
        await(s.write(type, "a", SHARD, 1, bytes("state")));
        List<CompletableFuture<?>> asked = new ArrayList<>();
        long start;
        try {
            dataSource().hold();
            start = System.nanoTime();
            asked.add(s.read(type, "a"));
            asked.add(s.nextEpoch(type, 1));
            asked.add(s.acquireCoordinatorLease(type, "a", "node a", Duration.ofMillis(400)));
            // the writer waits for a connection with the first; the others queue behind it
            asked.add(s.write(type, "a", SHARD, 1, bytes("not written")));
            asked.add(s.write(type, "b", SHARD, 1, bytes("not written")));
            asked.add(s.delete(type, "a", SHARD, 1));
            for (CompletableFuture<?> f : asked) {
                assertThat(failureOf(f))
                        .isInstanceOf(ShardingException.class)
                        .hasMessageContaining("the database does not answer")
                        .hasMessageContaining("sharding.store.query-timeout")
                        .hasMessageContaining("300ms");
            }
            assertThat(since(start)).as("time until all failed").isLessThan(Duration.ofSeconds(3));
        } finally {
            dataSource().release();
        }
        assertThat(text(await(s.read(type, "a")).orElseThrow())).isEqualTo("state");
        assertThat(await(s.read(type, "b"))).as("a write that failed").isEmpty();
        assertThat(writeOnceTheWriterTakesWritesAgain(s, "a", "after").version())
                .isEqualTo(2);
        assertThat(await(s.acquireCoordinatorLease(type, "a", "node a", Duration.ofSeconds(1)))
                        .granted())
                .isTrue();
    }

    /**
     * Writes once the writer takes writes again: after a database that did not answer, it takes none (they fail at
     * once, unapplied) until the database answers its check, which it makes every quarter of a second at most.
     */
    private StoredState writeOnceTheWriterTakesWritesAgain(JdbcShardingStore s, String id, String state) {
        return Awaitility.await("the writer taking writes again once the database answers its check")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .ignoreExceptionsMatching(e -> e instanceof ShardingException
                        && String.valueOf(e.getMessage()).contains("the database does not answer"))
                .until(() -> await(s.write(type, id, SHARD, 1, bytes(state))), java.util.Objects::nonNull);
    }

    @Test
    void aLeaseRowLockedByAFrozenNodeFailsTheRequestWithinTheLease() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults());
        assertThat(await(s.acquireCoordinatorLease(type, "a", "node a", Duration.ofSeconds(30)))
                        .granted())
                .isTrue();
        try (Connection frozen = frozenNodeLocking(
                "SELECT * FROM sharding_coordinator_lease WHERE cluster_name = ?" + " FOR UPDATE", type)) {
            long start = System.nanoTime();
            Throwable failure = failureOf(s.acquireCoordinatorLease(type, "b", "node b", Duration.ofSeconds(1)));
            assertThat(since(start)).as("time until the request failed").isLessThan(Duration.ofMillis(1500));
            assertThat(failure)
                    .isInstanceOf(ShardingException.class)
                    .hasMessageContaining("coordinator lease request of cluster [" + type + "] by [node b]")
                    .hasMessageContaining(
                            "the limit is 500ms, half the lease, at most sharding.store.query-timeout=2s");
            frozen.rollback();
        }
        assertThat(await(s.acquireCoordinatorLease(type, "b", "node b", Duration.ofSeconds(1)))
                        .holderId())
                .isEqualTo("a");
    }

    @Test
    void theStoreIdIsCreatedOnceWhenNodesAskAtOnceAndDiffersBetweenDatabases() throws Exception {
        JdbcStoreSettings settings =
                JdbcStoreSettings.defaults().withTablePrefix("id" + PREFIXES.incrementAndGet() + "_");
        List<JdbcShardingStore> nodes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            nodes.add(newStore(settings));
        }
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Optional<String>>> asked = new ArrayList<>();
        for (JdbcShardingStore node : nodes) {
            asked.add(CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            start.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return node.storeId().join();
                    },
                    runnable -> new Thread(runnable).start()));
        }
        start.countDown();
        String id = await(asked.get(0)).orElseThrow();
        for (CompletableFuture<Optional<String>> other : asked) {
            assertThat(await(other)).hasValue(id);
        }
        assertThat(await(newStore(settings).storeId()))
                .as("read by a new store")
                .hasValue(id);
        String defaultTables = await(store.storeId()).orElseThrow();
        assertThat(defaultTables)
                .as("the store of other tables in the same database")
                .isNotEqualTo(id);
        JdbcShardingStore elsewhere = new JdbcShardingStore(anotherDatabase(), JdbcStoreSettings.defaults());
        track(elsewhere);
        elsewhere.createSchema();
        assertThat(await(elsewhere.storeId()))
                .as("the store of another database")
                .isPresent()
                .isNotEqualTo(Optional.of(defaultTables));
    }

    @Test
    void aStateTableFromBeforeAppliedIdsWereKeptGetsTheirColumnAndKeepsItsRows() throws Exception {
        DataSource db = anotherDatabase();
        try (Connection c = db.getConnection()) {
            String binary = c.getMetaData()
                            .getDatabaseProductName()
                            .toLowerCase(java.util.Locale.ROOT)
                            .contains("postgres")
                    ? "BYTEA"
                    : "VARBINARY";
            try (java.sql.Statement st = c.createStatement()) {
                // the table as the schema script made it before
                st.execute("CREATE TABLE sharding_entity_state (type_name VARCHAR(255) NOT NULL,"
                        + " entity_id VARCHAR(1024) NOT NULL, state " + binary + " NOT NULL, version BIGINT NOT NULL,"
                        + " epoch BIGINT NOT NULL, updated_at TIMESTAMP WITH TIME ZONE NOT NULL,"
                        + " PRIMARY KEY (type_name, entity_id))");
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO sharding_entity_state VALUES (?, 'old', ?, 3, 1, CURRENT_TIMESTAMP)")) {
                ps.setString(1, type);
                ps.setBytes(2, bytes("before"));
                ps.executeUpdate();
            }
        }
        for (int start = 0; start < 2; start++) {
            JdbcShardingStore upgraded = new JdbcShardingStore(db, JdbcStoreSettings.defaults());
            track(upgraded);
            upgraded.createSchema(); // adds the column once, then finds it there
            StoredState old = await(upgraded.read(type, "old")).orElseThrow();
            assertThat(text(old)).isEqualTo("before");
            assertThat(old.version()).isEqualTo(3);
            assertThat(old.applied()).isNull();
        }
        JdbcShardingStore upgraded = new JdbcShardingStore(db, JdbcStoreSettings.defaults());
        track(upgraded);
        await(upgraded.write(type, "old", SHARD, 1, bytes("after"), bytes("ids")));
        StoredState read = await(upgraded.read(type, "old")).orElseThrow();
        assertThat(text(read)).isEqualTo("after");
        assertThat(read.version()).isEqualTo(4);
        assertThat(read.applied()).isEqualTo(bytes("ids"));
    }

    @Test
    void leaseNamesTheTableCannotHoldFailAlone() throws Exception {
        assertThat(failureOf(store.acquireCoordinatorLease(type, "x".repeat(256), "n", Duration.ofSeconds(1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 255 characters");
        assertThat(failureOf(store.acquireCoordinatorLease(type, "a", "n", Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1 microsecond");
        assertThat(await(store.acquireCoordinatorLease(type, "a", "n", Duration.ofSeconds(1)))
                        .granted())
                .isTrue();
    }
}
