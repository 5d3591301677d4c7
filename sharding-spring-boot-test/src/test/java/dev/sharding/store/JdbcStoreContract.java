package dev.sharding.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.ShardingException;
import dev.sharding.StoreOutcomeUnknownException;
import dev.sharding.boot.test.store.FaultyDataSource;
import dev.sharding.boot.test.store.ShardingStoreContract;
import dev.sharding.boot.test.store.StoreFault;
import dev.sharding.spi.NewEvent;
import dev.sharding.spi.PersistedEvent;
import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.ShardingStore.StoredState;
import dev.sharding.spi.Snapshot;
import dev.sharding.spi.StaleEpochException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The contract plus what only a store in a database has: group commit, the batch bound, closing with queued work,
 * schema creation and the table prefix. Subclasses provide one database per test class.
 */
abstract class JdbcStoreContract extends ShardingStoreContract {

    private static final AtomicInteger PREFIXES = new AtomicInteger();

    /**
     * The test class's database, behind a data source that can fail on demand.
     *
     * @return the data source
     */
    protected abstract FaultyDataSource dataSource();

    @Override
    protected ShardingStore createStore() {
        return newStore(JdbcStoreSettings.defaults());
    }

    /**
     * Deletes the coordinator leases the test left (the tests of this class take them directly too): the store serves
     * one cluster at a time, and the next test's cluster has another name.
     */
    @AfterEach
    void deleteLeases() throws Exception {
        injectFault(null);
        dataSource().release();
        try (Connection c = dataSource().getConnection();
                Statement st = c.createStatement()) {
            st.executeUpdate("DELETE FROM sharding_coordinator_lease");
        }
    }

    @Override
    protected boolean canInjectFaults() {
        return true;
    }

    @Override
    protected void injectFault(@Nullable StoreFault fault) {
        dataSource().inject(fault);
    }

    JdbcShardingStore newStore(JdbcStoreSettings settings) {
        JdbcShardingStore s = new JdbcShardingStore(dataSource(), settings);
        track(s);
        s.createSchema();
        return s;
    }

    /** Queues a first write, and holds it before its transaction starts until {@link FaultyDataSource#release()}. */
    private CompletableFuture<StoredState> holdWriterWith(JdbcShardingStore s, String id) throws Exception {
        await(s.write(type, "warm-up", SHARD, 1, bytes("warm")));
        dataSource().hold();
        CompletableFuture<StoredState> first = s.write(type, id, SHARD, 1, bytes("first"));
        Awaitility.await("writer waiting for a connection for the write of " + id)
                .atMost(Duration.ofSeconds(10))
                .until(() -> dataSource().waiting() == 1);
        return first;
    }

    @Test
    void aWriteWhoseConnectionBrokeBeforeItsCommitIsTriedOnAnotherWithinItsDeadline() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults());
        await(s.write(type, "a", SHARD, 1, bytes("before")));
        CompletableFuture<StoredState> during;
        dataSource().inject(StoreFault.CONNECTIONS_BREAK);
        try {
            during = s.write(type, "a", SHARD, 1, bytes("across the move"));
            Awaitility.await("the write failing on broken connections")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> dataSource().broken() >= 2);
        } finally {
            dataSource().inject(null); // the server is back, or has moved
        }
        assertThat(await(during).version())
                .as("stored once, on a connection that works")
                .isEqualTo(2);
        assertThat(text(await(s.read(type, "a")).orElseThrow())).isEqualTo("across the move");
    }

    @Test
    void aWriteWhoseCommitWasLostBeforeItReachedTheDatabaseIsTriedAgainOnceItsRowShowsItWasNotStored()
            throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults());
        await(s.write(type, "a", SHARD, 1, bytes("before")));
        CompletableFuture<StoredState> during;
        dataSource().inject(StoreFault.COMMIT_FAILS);
        try {
            during = s.write(type, "a", SHARD, 1, bytes("across the cut"));
            Awaitility.await("the write's commit lost")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> dataSource().lostCommits() >= 1);
        } finally {
            dataSource().inject(null); // the server answers again
        }
        assertThat(await(during).version())
                .as("stored once: its row showed the lost commit had not been applied, so it was tried again")
                .isEqualTo(2);
        assertThat(text(await(s.read(type, "a")).orElseThrow())).isEqualTo("across the cut");
    }

    @Test
    void aReadAndANewEpochWhoseConnectionsBrokeAreTriedOnAnotherWithinTheirDeadline() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults());
        await(s.write(type, "a", SHARD, 1, bytes("stored")));
        CompletableFuture<java.util.Optional<StoredState>> read;
        CompletableFuture<Long> epoch;
        dataSource().inject(StoreFault.CONNECTIONS_BREAK);
        try {
            read = s.read(type, "a");
            epoch = s.nextEpoch(type, SHARD + 1);
            Awaitility.await("the read and the new epoch failing on broken connections")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> dataSource().broken() >= 4);
        } finally {
            dataSource().inject(null);
        }
        assertThat(text(await(read).orElseThrow())).isEqualTo("stored");
        assertThat(await(epoch)).as("taken once").isEqualTo(1L);
    }

    @Test
    void theStartupCheckWaitsForADatabaseWhoseConnectionsBreakForAWhile() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withQueryTimeout(Duration.ofMillis(300)));
        dataSource().inject(StoreFault.CONNECTIONS_BREAK);
        CompletableFuture<Void> check;
        try {
            // as a node starting while the embedded database's server moves finds it
            check = CompletableFuture.runAsync(s::checkDurability);
            Awaitility.await("the check failing on broken connections")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> dataSource().broken() >= 2);
        } finally {
            dataSource().inject(null);
        }
        await(check);
    }

    @Test
    void aWriteWhoseConnectionsKeepBreakingFailsAtItsDeadlineWithNothingApplied() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withQueryTimeout(Duration.ofMillis(300)));
        await(s.write(type, "a", SHARD, 1, bytes("before")));
        dataSource().inject(StoreFault.CONNECTIONS_BREAK);
        try {
            CompletableFuture<StoredState> failing = s.write(type, "a", SHARD, 1, bytes("lost"));
            assertThat(failureOf(failing))
                    .isInstanceOf(ShardingException.class)
                    .isNotInstanceOf(StoreOutcomeUnknownException.class)
                    .hasMessageContaining("nothing of its batch")
                    .hasRootCauseMessage("Injected fault: the connection broke (the server restarted or moved)");
            assertThat(dataSource().broken()).as("tried on several connections").isGreaterThanOrEqualTo(2);
        } finally {
            dataSource().inject(null);
        }
        StoredState row = await(s.read(type, "a")).orElseThrow();
        assertThat(text(row)).isEqualTo("before");
        assertThat(row.version()).isEqualTo(1);
    }

    @Test
    void theStoresClockIsTheDatabasesAndReadsAsTheTimeNow() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults());
        long before = System.currentTimeMillis();
        long db = s.currentTimeMillis().get(10, java.util.concurrent.TimeUnit.SECONDS);
        long after = System.currentTimeMillis();
        // the database runs on this machine: its clock is this one, to within the round trip and rounding
        org.assertj.core.api.Assertions.assertThat(db).isBetween(before - 1000, after + 1000);
    }

    @Test
    void operationsQueuedWhileATransactionStartsAreCommittedTogether() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults());
        CompletableFuture<StoredState> first;
        List<CompletableFuture<?>> queued = new ArrayList<>();
        CompletableFuture<StoredState> stale;
        long batchesBefore;
        try {
            first = holdWriterWith(s, "first");
            batchesBefore = s.statistics().batches();
            for (int i = 0; i < 100; i++) {
                queued.add(s.write(type, "queued-" + i, SHARD, 1, bytes("q" + i)));
            }
            stale = s.write(type, "warm-up", SHARD, 0, bytes("stale"));
            queued.add(s.updateRemembered(type, 1, List.of("queued-1"), List.of()));
            queued.add(s.delete(type, "queued-2", SHARD, 1));
        } finally {
            dataSource().release();
        }
        await(first);
        for (CompletableFuture<?> f : queued) {
            await(f);
        }
        assertThatThrownBy(() -> await(stale)).isInstanceOf(StaleEpochException.class);
        JdbcStoreStatistics stats = s.statistics();
        assertThat(stats.batches() - batchesBefore)
                .as("batches after the first: %s", stats)
                .isEqualTo(2);
        assertThat(stats.largestBatch()).isEqualTo(103);
        assertThat(await(s.read(type, "queued-2"))).isEmpty();
        assertThat(text(await(s.read(type, "warm-up")).orElseThrow())).isEqualTo("warm");
        assertThat(await(s.remembered(type, 1))).containsExactly("queued-1");
    }

    /**
     * One transaction with rows of two types on shards that share ids: each write is fenced by the epoch of its own
     * type's shard, whether its row exists (updated in the batch's first round trip where the database can) or not.
     */
    @Test
    void aBatchOfTwoTypesFencesEachWriteByItsOwnTypesShard() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults());
        String other = type + "-other";
        for (String t : List.of(type, other)) {
            for (int shard : new int[] {1, 2}) {
                assertThat(await(s.nextEpoch(t, shard))).isEqualTo(1);
                await(s.write(t, "row-" + shard, shard, 1, bytes(t + " " + shard)));
            }
        }
        // shard 2 of the first type moves on; shard 2 of the other type stays at epoch 1
        assertThat(await(s.nextEpoch(type, 2))).isEqualTo(2);
        CompletableFuture<StoredState> first;
        List<CompletableFuture<StoredState>> accepted = new ArrayList<>();
        List<CompletableFuture<StoredState>> fenced = new ArrayList<>();
        long batchesBefore;
        try {
            first = holdWriterWith(s, "first");
            batchesBefore = s.statistics().batches();
            accepted.add(s.write(type, "row-1", 1, 1, bytes("a1 once")));
            accepted.add(s.write(type, "row-1", 1, 1, bytes("a1 twice")));
            fenced.add(s.write(type, "row-2", 2, 1, bytes("a2 late")));
            fenced.add(s.write(type, "new-2", 2, 1, bytes("a2 new late")));
            accepted.add(s.write(other, "row-1", 1, 1, bytes("b1 once")));
            accepted.add(s.write(other, "row-2", 2, 1, bytes("b2 once")));
            accepted.add(s.write(other, "new-2", 2, 1, bytes("b2 new")));
            accepted.add(s.write(type, "next-2", 2, 2, bytes("a2 by the new owner")));
        } finally {
            dataSource().release();
        }
        await(first);
        for (CompletableFuture<StoredState> f : fenced) {
            assertThatThrownBy(() -> await(f)).isInstanceOf(StaleEpochException.class);
        }
        assertThat(accepted.stream()
                        .map(f -> {
                            try {
                                StoredState stored = await(f);
                                return text(stored) + " v" + stored.version() + " e" + stored.epoch();
                            } catch (Exception e) {
                                return e.toString();
                            }
                        })
                        .toList())
                .containsExactly(
                        "a1 once v2 e1",
                        "a1 twice v3 e1",
                        "b1 once v2 e1",
                        "b2 once v2 e1",
                        "b2 new v1 e1",
                        "a2 by the new owner v1 e2");
        assertThat(s.statistics().batches() - batchesBefore)
                .as("the held write's batch, then the queued writes in one")
                .isEqualTo(2);
        assertThat(text(await(s.read(type, "row-1")).orElseThrow())).isEqualTo("a1 twice");
        assertThat(text(await(s.read(type, "row-2")).orElseThrow())).isEqualTo(type + " 2");
        assertThat(text(await(s.read(type, "next-2")).orElseThrow())).isEqualTo("a2 by the new owner");
        assertThat(await(s.read(type, "new-2"))).isEmpty();
        assertThat(text(await(s.read(other, "row-2")).orElseThrow())).isEqualTo("b2 once");
        assertThat(text(await(s.read(other, "new-2")).orElseThrow())).isEqualTo("b2 new");
    }

    @Test
    void noBatchHoldsMoreThanTheMaximum() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withMaxBatchSize(10));
        List<CompletableFuture<StoredState>> queued = new ArrayList<>();
        long batchesBefore;
        try {
            queued.add(holdWriterWith(s, "first"));
            batchesBefore = s.statistics().batches();
            for (int i = 0; i < 35; i++) {
                queued.add(s.write(type, "queued-" + i, SHARD, 1, bytes("q" + i)));
            }
        } finally {
            dataSource().release();
        }
        for (CompletableFuture<StoredState> f : queued) {
            await(f);
        }
        JdbcStoreStatistics stats = s.statistics();
        assertThat(stats.batches() - batchesBefore)
                .as("1 + 10 + 10 + 10 + 5: %s", stats)
                .isEqualTo(5);
        assertThat(stats.largestBatch()).isEqualTo(10);
    }

    /** Makes the writer's last transaction one of {@code size} writes (queued while it waits for a connection). */
    private void commitATransactionOf(JdbcShardingStore s, int size) throws Exception {
        List<CompletableFuture<StoredState>> queued = new ArrayList<>();
        try {
            queued.add(holdWriterWith(s, "first"));
            for (int i = 0; i < size; i++) {
                queued.add(s.write(type, "queued-" + i, SHARD, 1, bytes("q" + i)));
            }
        } finally {
            dataSource().release();
        }
        for (CompletableFuture<StoredState> f : queued) {
            await(f);
        }
    }

    @Test
    void afterALargeTransactionTheWriterLingersForWritesThatFollow() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withBatchLinger(Duration.ofSeconds(1)));
        commitATransactionOf(s, JdbcStoreSettings.LINGER_AFTER_BATCH_OF + 4);
        long batchesBefore = s.statistics().batches();
        // the writer takes the first alone and, after a transaction of twelve, waits for more before it begins
        CompletableFuture<StoredState> first = s.write(type, "late-1", SHARD, 1, bytes("l1"));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> s.queuedOperations() == 0);
        CompletableFuture<StoredState> second = s.write(type, "late-2", SHARD, 1, bytes("l2"));
        assertThat(await(first).version()).isEqualTo(1);
        assertThat(await(second).version()).isEqualTo(1);
        assertThat(s.statistics().batches() - batchesBefore)
                .as("both late writes in one transaction: %s", s.statistics())
                .isEqualTo(1);
    }

    /**
     * A lingering writer begins its transaction once it holds as many operations as the one before: a write that
     * comes after that goes into the next transaction, although the linger (a second) is far from over.
     */
    @Test
    void aLingeringWriterBeginsOnceItHoldsAsManyAsItsPreviousTransaction() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withBatchLinger(Duration.ofSeconds(1)));
        int previous = JdbcStoreSettings.LINGER_AFTER_BATCH_OF + 4;
        commitATransactionOf(s, previous);
        long batchesBefore = s.statistics().batches();
        List<CompletableFuture<StoredState>> late = new ArrayList<>();
        for (int i = 0; i < previous; i++) {
            late.add(s.write(type, "late-" + i, SHARD, 1, bytes("l" + i)));
        }
        // every late write taken by the writer: it holds as many as its previous transaction and stops waiting
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> s.queuedOperations() == 0);
        CompletableFuture<StoredState> after = s.write(type, "after", SHARD, 1, bytes("a"));
        for (CompletableFuture<StoredState> f : late) {
            assertThat(await(f).version()).isEqualTo(1);
        }
        assertThat(await(after).version()).isEqualTo(1);
        assertThat(s.statistics().batches() - batchesBefore)
                .as("the late writes in one transaction, the one after them in the next: %s", s.statistics())
                .isEqualTo(2);
    }

    /**
     * Reads asked for all at once, as the entities of shards a failover moved ask for their states, are served
     * together: each still gets its own entity's row, of its own type, or nothing for an entity never written, and two
     * reads of one entity get a copy each.
     */
    @Test
    void manyReadsAtOnceEachGetTheirOwnEntitysState() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults());
        String other = type + "-other";
        List<CompletableFuture<StoredState>> writes = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            writes.add(s.write(type, "e" + i, SHARD, 1, bytes(type + " e" + i)));
            if (i % 3 == 0) {
                writes.add(s.write(other, "e" + i, SHARD, 1, bytes(other + " e" + i)));
            }
        }
        for (CompletableFuture<StoredState> w : writes) {
            await(w);
        }
        List<CompletableFuture<Optional<StoredState>>> reads = new ArrayList<>();
        List<@Nullable String> expected = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 400; i++) { // e300 and above were never written
                reads.add(s.read(type, "e" + i));
                expected.add(i < 300 ? type + " e" + i : null);
                reads.add(s.read(other, "e" + i));
                expected.add(i < 300 && i % 3 == 0 ? other + " e" + i : null);
            }
        }
        for (int r = 0; r < reads.size(); r++) {
            Optional<StoredState> got = await(reads.get(r));
            if (expected.get(r) == null) {
                assertThat(got).as("read %d, of an entity never written", r).isEmpty();
            } else {
                assertThat(got).as("read %d", r).isPresent();
                assertThat(text(got.get())).as("read %d", r).isEqualTo(expected.get(r));
                assertThat(got.get().version()).isEqualTo(1);
                assertThat(got.get().epoch()).isEqualTo(1);
            }
        }
        assertThat(await(reads.get(0)).orElseThrow().state())
                .as("the state array of the second read of e0")
                .isNotSameAs(await(reads.get(800)).orElseThrow().state());
    }

    /**
     * New epochs asked for many shards at once, as a coordinator allocates every shard of the nodes it lost, are taken
     * together; each shard's still rise by exactly one per request, in the order asked, whether its row existed or not.
     */
    @Test
    void manyNewEpochsAtOnceRiseByOnePerRequestOnEveryShard() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults());
        for (int shard = 0; shard < 20; shard++) {
            assertThat(await(s.nextEpoch(type, shard))).isEqualTo(1);
        }
        Map<Integer, List<CompletableFuture<Long>>> asked = new TreeMap<>();
        for (int round = 0; round < 3; round++) {
            for (int shard = 0; shard < 200; shard++) {
                asked.computeIfAbsent(shard, k -> new ArrayList<>()).add(s.nextEpoch(type, shard));
            }
        }
        Map<Integer, Long> expected = new TreeMap<>();
        for (Map.Entry<Integer, List<CompletableFuture<Long>>> shard : asked.entrySet()) {
            long before = shard.getKey() < 20 ? 1 : 0;
            List<Long> got = new ArrayList<>();
            for (CompletableFuture<Long> f : shard.getValue()) {
                got.add(await(f));
            }
            assertThat(got)
                    .as("epochs of shard %d, in the order asked", shard.getKey())
                    .containsExactly(before + 1, before + 2, before + 3);
            expected.put(shard.getKey(), before + 3);
        }
        assertThat(await(s.currentEpochs(type))).isEqualTo(expected);
    }

    /** A transaction of new epochs that cannot commit fails every request in it, and takes none of the epochs. */
    @Test
    void newEpochsWhoseTransactionCannotCommitAllFailAndNoneIsTaken() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withQueryTimeout(Duration.ofMillis(500)));
        assertThat(await(s.nextEpoch(type, 0))).isEqualTo(1);
        List<CompletableFuture<Long>> during = new ArrayList<>();
        dataSource().inject(StoreFault.COMMIT_FAILS);
        try {
            for (int shard = 0; shard < 50; shard++) {
                during.add(s.nextEpoch(type, shard));
            }
            for (CompletableFuture<Long> f : during) {
                assertThat(failureOf(f)).isInstanceOf(ShardingException.class);
            }
        } finally {
            dataSource().inject(null);
        }
        assertThat(await(s.currentEpochs(type))).isEqualTo(Map.of(0, 1L));
        assertThat(await(s.nextEpoch(type, 0))).isEqualTo(2);
        assertThat(await(s.nextEpoch(type, 7))).isEqualTo(1);
    }

    /**
     * Reads and new epochs queued while no connection is free end when the store closes, rather than wait for ever.
     */
    @Test
    void readsAndEpochsQueuedWhenTheStoreClosesFail() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withCloseTimeout(Duration.ofMillis(200)));
        List<CompletableFuture<?>> queued = new ArrayList<>();
        dataSource().hold();
        try {
            // a read and a new epoch take the read threads, each stopped for a connection, so that the others queue
            // behind them (requests of one kind are served together: a thread that started late could have taken all)
            queued.add(s.read(type, "e0"));
            queued.add(s.nextEpoch(type, 0));
            Awaitility.await("the read threads waiting for a connection")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> dataSource().waiting()
                            >= JdbcStoreSettings.defaults().readThreads());
            for (int i = 1; i < 50; i++) {
                queued.add(s.read(type, "e" + i));
                queued.add(s.nextEpoch(type, i));
            }
            s.close();
        } finally {
            dataSource().release();
        }
        int closed = 0;
        for (CompletableFuture<?> f : queued) {
            // done, one way or the other (a task that had its connection may still have served its batch)
            Throwable failure = failureOf(f);
            if (failure != null) {
                assertThat(failure).isInstanceOf(ShardingException.class);
                closed += String.valueOf(failure.getMessage()).contains("closed") ? 1 : 0;
            }
        }
        assertThat(closed).as("requests failed because the store closed").isPositive();
    }

    @Test
    void closeCommitsWhatIsQueuedAndThenRefusesOperations() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults());
        List<CompletableFuture<StoredState>> queued = new ArrayList<>();
        CompletableFuture<Void> closing;
        try {
            queued.add(holdWriterWith(s, "first"));
            for (int i = 0; i < 200; i++) {
                queued.add(s.write(type, "queued-" + i, SHARD, 1, bytes("q" + i)));
            }
            closing = CompletableFuture.runAsync(s::close);
        } finally {
            dataSource().release();
        }
        await(closing);
        for (CompletableFuture<StoredState> f : queued) {
            assertThat(await(f).version()).isEqualTo(1);
        }
        assertThatThrownBy(() -> await(s.write(type, "late", SHARD, 1, bytes("late"))))
                .isInstanceOf(ShardingException.class)
                .hasMessageContaining("closed before the write of [" + type + "/late]");
        assertThatThrownBy(() -> await(s.read(type, "queued-1")))
                .isInstanceOf(ShardingException.class)
                .hasMessageContaining("closed");
        assertThat(text(await(store.read(type, "queued-199")).orElseThrow())).isEqualTo("q199");
    }

    @Test
    void closeFailsTheQueuedWorkItCannotFinishInTime() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withCloseTimeout(Duration.ofMillis(200)));
        CompletableFuture<StoredState> first;
        List<CompletableFuture<StoredState>> queued = new ArrayList<>();
        try {
            first = holdWriterWith(s, "first");
            for (int i = 0; i < 20; i++) {
                queued.add(s.write(type, "queued-" + i, SHARD, 1, bytes("q" + i)));
            }
            long start = System.nanoTime();
            s.close();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            for (CompletableFuture<StoredState> f : queued) {
                assertThat(failureOf(f)).isInstanceOf(ShardingException.class).hasMessageContaining("closed before");
            }
        } finally {
            dataSource().release();
        }
        // the transaction that was starting when the store closed still ends, one way or the other
        failureOf(first);
    }

    @Test
    void schemaCreationIsIdempotentAndSafeFromSeveralNodesAtOnce() throws Exception {
        JdbcStoreSettings settings =
                JdbcStoreSettings.defaults().withTablePrefix("race" + PREFIXES.incrementAndGet() + "_");
        List<JdbcShardingStore> nodes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            JdbcShardingStore node = new JdbcShardingStore(dataSource(), settings);
            track(node);
            nodes.add(node);
        }
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Void>> creations = new ArrayList<>();
        for (JdbcShardingStore node : nodes) {
            creations.add(CompletableFuture.runAsync(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                node.createSchema();
            }));
        }
        start.countDown();
        for (CompletableFuture<Void> creation : creations) {
            await(creation);
        }
        nodes.get(0).createSchema();
        await(nodes.get(1).write(type, "a", SHARD, 1, bytes("shared")));
        assertThat(text(await(nodes.get(3).read(type, "a")).orElseThrow())).isEqualTo("shared");
    }

    /**
     * Appends go through the writer's group commit with the state writes: queued while the writer waits, they are
     * committed together in one transaction, which takes one run of consecutive offsets for all of them, in queue
     * order.
     */
    @Test
    void appendsAndStateWritesQueuedTogetherAreCommittedInOneTransaction() throws Exception {
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults());
        List<CompletableFuture<?>> queued = new ArrayList<>();
        long batchesBefore;
        try {
            queued.add(holdWriterWith(s, "first"));
            batchesBefore = s.statistics().batches();
            for (int i = 0; i < 50; i++) {
                queued.add(s.appendEvents(
                        type,
                        "es-" + i,
                        SHARD,
                        1,
                        0,
                        List.of(new NewEvent("evt", 1, bytes("e" + i), Set.of(type + "-tag"))),
                        null,
                        null));
                queued.add(s.write(type, "state-" + i, SHARD, 1, bytes("s" + i)));
            }
        } finally {
            dataSource().release();
        }
        for (CompletableFuture<?> f : queued) {
            await(f);
        }
        assertThat(s.statistics().batches() - batchesBefore)
                .as("the held write's transaction, then one for the hundred queued behind it: %s", s.statistics())
                .isEqualTo(2);
        List<PersistedEvent> events = await(s.eventsByTag(type + "-tag", 0, 100));
        assertThat(events)
                .extracting(e -> e.entityId())
                .containsExactlyElementsOf(java.util.stream.IntStream.range(0, 50)
                        .mapToObj(i -> "es-" + i)
                        .toList());
        assertThat(events.get(49).globalOffset() - events.get(0).globalOffset()).isEqualTo(49);
    }

    @Test
    void journalTablesCarryTheConfiguredPrefix() throws Exception {
        String prefix = "journal" + PREFIXES.incrementAndGet() + "_";
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withTablePrefix(prefix));
        await(s.appendEvents(
                type,
                "a",
                SHARD,
                1,
                0,
                List.of(new NewEvent("evt", 1, bytes("x"), Set.of(type + "-tag"))),
                null,
                new Snapshot(1, bytes("s"))));
        assertThat(count(prefix + "event_journal")).isEqualTo(1);
        assertThat(count(prefix + "event_snapshot")).isEqualTo(1);
        assertThat(count(prefix + "entity_state")).as("the journal's head").isEqualTo(1);
        assertThat(count("sharding_event_journal")).isZero();
        try (Connection c = dataSource().getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + prefix + "event_tag")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(1);
        }
        assertThat(await(s.lastGlobalOffset())).as("the prefix's own counter").isEqualTo(1);
    }

    @Test
    void tablesCarryTheConfiguredPrefix() throws Exception {
        String prefix = "custom" + PREFIXES.incrementAndGet() + "_";
        JdbcShardingStore s = newStore(JdbcStoreSettings.defaults().withTablePrefix(prefix));
        await(s.write(type, "a", SHARD, 1, bytes("x")));
        await(s.updateRemembered(type, 4, List.of("a"), List.of()));
        await(s.nextEpoch(type, 4));
        assertThat(count(prefix + "entity_state")).isEqualTo(1);
        assertThat(count(prefix + "remembered_entity")).isEqualTo(1);
        assertThat(count(prefix + "shard_epoch")).isEqualTo(1);
        assertThat(count("sharding_entity_state")).isZero();
    }

    private long count(String table) throws Exception {
        try (Connection c = dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE type_name = ?")) {
            ps.setString(1, type);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Test
    void keysTheTablesCannotHoldFailAloneBeforeTheyAreQueued() throws Exception {
        CompletableFuture<StoredState> fine = store.write(type, "fine", SHARD, 1, bytes("ok"));
        assertThatThrownBy(() -> await(store.write(type, "x".repeat(1025), SHARD, 1, bytes("x"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("longer than 1024");
        assertThatThrownBy(() -> await(store.write("t".repeat(256), "a", SHARD, 1, bytes("x"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("longer than 255");
        assertThatThrownBy(() -> await(store.delete(type, "nul\u0000", SHARD, 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("U+0000");
        assertThatThrownBy(() -> await(store.updateRemembered(type, 1, List.of("y".repeat(1025)), List.of())))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(await(store.write(type, "z".repeat(1024), SHARD, 1, bytes("longest")))
                        .version())
                .isEqualTo(1);
        assertThat(await(fine).version()).isEqualTo(1);
    }
}
