package dev.sharding.internal.entity;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class CellTableTest {

    /** A shard that no call reaches: the table only reads a cell's id and hash. */
    private static final EntityShard NO_SHARD = (EntityShard) Proxy.newProxyInstance(
            EntityShard.class.getClassLoader(), new Class<?>[] {EntityShard.class}, (proxy, method, args) -> {
                throw new AssertionError("the table called the shard: " + method.getName());
            });

    private static final Function<String, EntityCell> CREATE = id -> new EntityCell(NO_SHARD, id);

    private final CellTable table = new CellTable();

    @Test
    void findsAddsAndRemovesCellsAcrossGrowth() {
        List<EntityCell> added = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            added.add(table.getOrAdd("e" + i, CREATE));
        }
        assertThat(table.size()).isEqualTo(10_000);
        for (int i = 0; i < 10_000; i++) {
            assertThat(table.get("e" + i)).isSameAs(added.get(i));
            assertThat(table.getOrAdd("e" + i, id -> {
                        throw new AssertionError("made a second cell of " + id);
                    }))
                    .isSameAs(added.get(i));
        }
        assertThat(table.snapshot()).hasSize(10_000).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(added);
        assertThat(table.values()).hasSize(10_000).containsExactlyInAnyOrderElementsOf(added);

        for (int i = 0; i < 10_000; i += 2) {
            assertThat(table.remove(added.get(i))).isTrue();
            assertThat(table.remove(added.get(i))).as("removed once").isFalse();
        }
        assertThat(table.size()).isEqualTo(5_000);
        for (int i = 0; i < 10_000; i++) {
            assertThat(table.get("e" + i)).isSameAs(i % 2 == 0 ? null : added.get(i));
        }
        EntityCell again = table.getOrAdd("e0", CREATE);
        assertThat(again).isNotSameAs(added.get(0));
        assertThat(table.remove(added.get(0)))
                .as("an earlier cell of the id is not the one held")
                .isFalse();
        assertThat(table.get("e0")).isSameAs(again);
        assertThat(table.get("nobody")).isNull();
    }

    @Test
    void idsWithTheSameHashShareABucketAndAreToldApart() {
        // "Aa" and "BB" have the same String hash
        EntityCell aa = table.getOrAdd("Aa", CREATE);
        EntityCell bb = table.getOrAdd("BB", CREATE);
        assertThat(aa.hash).isEqualTo(bb.hash);
        assertThat(table.get("Aa")).isSameAs(aa);
        assertThat(table.get("BB")).isSameAs(bb);
        assertThat(table.remove(aa)).isTrue();
        assertThat(table.get("Aa")).isNull();
        assertThat(table.get("BB")).isSameAs(bb);
    }

    /**
     * While one thread adds cells (the table growing again and again), others look up the cells already added:
     * {@code getOrAdd} must find each one, never make a second, and {@code get} must never give another id's cell.
     */
    @Test
    void cellsAlreadyAddedAreFoundWhileTheTableGrows() throws Exception {
        int n = 200_000;
        AtomicReferenceArray<EntityCell> added = new AtomicReferenceArray<>(n);
        AtomicInteger published = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean done = new AtomicBoolean();
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            readers.add(new Thread(() -> {
                try {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (!done.get()) {
                        int k = published.get();
                        if (k == 0) {
                            continue;
                        }
                        int i = random.nextInt(k);
                        EntityCell expected = added.get(i);
                        EntityCell got = table.getOrAdd("e" + i, id -> {
                            throw new AssertionError("made a second cell of " + id);
                        });
                        if (got != expected) {
                            throw new AssertionError("getOrAdd of e" + i + " gave " + got);
                        }
                        EntityCell seen = table.get("e" + i);
                        if (seen != null && seen != expected) {
                            throw new AssertionError("get of e" + i + " gave " + seen);
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        readers.forEach(Thread::start);
        for (int i = 0; i < n; i++) {
            added.set(i, table.getOrAdd("e" + i, CREATE));
            published.set(i + 1);
        }
        done.set(true);
        for (Thread t : readers) {
            t.join();
        }
        assertThat(failure.get()).isNull();
        assertThat(table.size()).isEqualTo(n);
        assertThat(table.snapshot()).hasSize(n).doesNotHaveDuplicates();
    }

    /**
     * Threads add and remove cells of a few thousand ids at random while another takes snapshots: no snapshot ever
     * holds two cells of one id, and every snapshot holds as many cells as the table counted then.
     */
    @Test
    void concurrentAddsAndRemovesNeverLeaveTwoCellsOfOneId() throws Exception {
        int ids = 3_000;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger snapshots = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            workers.add(new Thread(() -> {
                try {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int k = 0; k < 300_000; k++) {
                        String id = "e" + random.nextInt(ids);
                        EntityCell cell = table.getOrAdd(id, CREATE);
                        if (!cell.entityId().equals(id)) {
                            throw new AssertionError("asked " + id + ", got " + cell.entityId());
                        }
                        if (random.nextInt(3) == 0) {
                            table.remove(cell);
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        Thread checker = new Thread(() -> {
            try {
                while (!done.get()) {
                    List<EntityCell> all = table.snapshot();
                    Set<String> seen = new HashSet<>();
                    for (EntityCell c : all) {
                        if (!seen.add(c.entityId())) {
                            throw new AssertionError("two cells of " + c.entityId());
                        }
                    }
                    snapshots.incrementAndGet();
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        });
        workers.forEach(Thread::start);
        checker.start();
        for (Thread t : workers) {
            t.join();
        }
        done.set(true);
        checker.join();
        assertThat(failure.get()).isNull();
        assertThat(snapshots.get()).isPositive();
        List<EntityCell> all = table.snapshot();
        assertThat(all).hasSize(table.size());
        for (EntityCell c : all) {
            assertThat(table.get(c.entityId())).isSameAs(c);
        }
    }
}
