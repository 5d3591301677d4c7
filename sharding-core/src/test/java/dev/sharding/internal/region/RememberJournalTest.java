package dev.sharding.internal.region;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.spi.StaleEpochException;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.ForwardingStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The remember-entities journal of one region over a store whose writes the test completes by hand, with the control
 * thread played by a queue the test drains.
 */
class RememberJournalTest {

    /** Writes wait until the test completes them; each is recorded. */
    private static final class HeldStore extends ForwardingStore {

        record Write(int shard, long epoch, List<String> started, List<String> stopped, CompletableFuture<Void> done) {}

        final List<Write> writes = new CopyOnWriteArrayList<>();

        HeldStore() {
            super(new InMemoryShardingStore());
        }

        @Override
        public CompletableFuture<Void> updateRemembered(
                String typeName,
                int shardId,
                long epoch,
                java.util.Collection<String> started,
                java.util.Collection<String> stopped) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            writes.add(new Write(shardId, epoch, List.copyOf(started), List.copyOf(stopped), done));
            return done.thenCompose(v -> super.updateRemembered(typeName, shardId, epoch, started, stopped));
        }
    }

    private final HeldStore store = new HeldStore();

    private final ConcurrentLinkedQueue<Runnable> control = new ConcurrentLinkedQueue<>();

    private final java.util.concurrent.ScheduledExecutorService scheduler =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor();

    private final RememberJournal journal =
            new RememberJournal("counter", store, control::add, scheduler, java.time.Duration.ofMillis(400));

    @org.junit.jupiter.api.AfterEach
    void stopScheduler() {
        scheduler.shutdownNow();
    }

    private void runControl() {
        Runnable r;
        while ((r = control.poll()) != null) {
            r.run();
        }
    }

    @Test
    void aFlushWritesTheLatestEventOfEachEntityPerShard() {
        journal.started(1, 1L, "a");
        journal.started(1, 1L, "b");
        journal.stopped(1, 1L, "a");
        journal.started(2, 1L, "c");

        journal.flush(-1);

        assertThat(store.writes).hasSize(2);
        HeldStore.Write shard1 =
                store.writes.stream().filter(w -> w.shard() == 1).findFirst().orElseThrow();
        assertThat(shard1.started()).containsExactly("b");
        assertThat(shard1.stopped()).containsExactly("a");
    }

    @Test
    void aFlushOfOneShardLeavesTheOthersForLater() {
        journal.started(1, 1L, "a");
        journal.started(2, 1L, "b");

        journal.flush(2);

        assertThat(store.writes).extracting(HeldStore.Write::shard).containsExactly(2);
        journal.flush(-1);
        assertThat(store.writes).extracting(HeldStore.Write::shard).containsExactly(2, 1);
    }

    @Test
    void oneWriteAtATimePerShardSoThatTheyCommitInOrder() {
        journal.started(1, 1L, "a");
        CompletableFuture<Void> first = journal.flush(1);
        journal.stopped(1, 1L, "a");
        CompletableFuture<Void> second = journal.flush(1);

        assertThat(store.writes).hasSize(1); // the second waits for the first
        store.writes.get(0).done().complete(null);
        runControl();

        assertThat(first).isDone();
        assertThat(store.writes).hasSize(2);
        assertThat(store.writes.get(1).stopped()).containsExactly("a");
        store.writes.get(1).done().complete(null);
        runControl();
        assertThat(second).isDone();
        assertThat(store.remembered("counter", 1).join()).isEmpty();
    }

    @Test
    void aFailedWriteIsTriedAgainUnderNewerEventsOfTheSameEntity() {
        journal.started(1, 1L, "a");
        journal.started(1, 1L, "b");
        journal.flush(1);
        journal.stopped(1, 1L, "a"); // newer than the failing write's "a started"
        store.writes.get(0).done().completeExceptionally(new IllegalStateException("database down"));
        runControl();

        journal.flush(1);

        assertThat(store.writes).hasSize(2);
        HeldStore.Write retry = store.writes.get(1);
        assertThat(retry.started()).containsExactly("b");
        assertThat(retry.stopped()).containsExactly("a");
        retry.done().complete(null);
        runControl();
        assertThat(store.remembered("counter", 1).join()).containsExactly("b");
    }

    @Test
    void aWriteRefusedForAStaleEpochIsDroppedNotTriedAgain() {
        journal.started(1, 1L, "a");
        journal.started(1, 2L, "b");
        journal.flush(1);
        assertThat(store.writes.get(0).epoch())
                .as("the newest epoch of the events")
                .isEqualTo(2L);
        store.writes.get(0).done().completeExceptionally(new StaleEpochException("counter", "shard 1", 2, 3));
        runControl();

        journal.flush(1);
        assertThat(store.writes)
                .as("a stale owner's changes are not written again")
                .hasSize(1);
    }

    @Test
    void rememberedEntitiesStartOnlyIfTheShardIsStillHosted() {
        store.updateRemembered("counter", 3, 1L, Set.of("x", "y"), Set.of());
        store.writes.get(0).done().complete(null);
        List<String> started = new ArrayList<>();

        journal.startRemembered(3, () -> true, started::add);
        journal.startRemembered(3, () -> false, id -> started.add("never " + id));

        assertThat(started).containsExactlyInAnyOrder("x", "y");
    }

    @Test
    void aFailedReadOfRememberedEntitiesIsMadeAgainWhileTheShardIsHosted() {
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        ForwardingStore failing = new ForwardingStore(new InMemoryShardingStore()) {
            @Override
            public CompletableFuture<Set<String>> remembered(String typeName, int shardId) {
                return reads.incrementAndGet() <= 3
                        ? CompletableFuture.failedFuture(new IllegalStateException("database restarting"))
                        : CompletableFuture.completedFuture(Set.of("x", "y"));
            }
        };
        RememberJournal retrying =
                new RememberJournal("counter", failing, control::add, scheduler, java.time.Duration.ofMillis(400));
        List<String> started = new CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean hosted = new java.util.concurrent.atomic.AtomicBoolean(true);

        retrying.startRemembered(3, hosted::get, started::add);
        org.awaitility.Awaitility.await("the fourth read")
                .atMost(java.time.Duration.ofSeconds(10))
                .until(() -> started.size() == 2);
        assertThat(started).containsExactlyInAnyOrder("x", "y");
        assertThat(reads.get()).isEqualTo(4);

        // a shard no longer hosted here stops the attempts
        reads.set(0);
        hosted.set(false);
        retrying.startRemembered(4, hosted::get, started::add);
        assertThat(reads.get()).isZero();
    }

    @Test
    void nothingRecordedWritesNothing() {
        assertThat(journal.flush(-1)).isDone();
        assertThat(store.writes).isEmpty();
    }
}
