package dev.sharding.internal.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ProjectionHandler;
import dev.sharding.internal.codec.EventCodec;
import dev.sharding.spi.ShardingMetrics;
import dev.sharding.spi.ShardingStore;
import dev.sharding.store.InMemoryShardingStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class ProjectionWorkerTest {

    @Test
    void aCaughtUpWorkerLooksLessOftenTheLongerItFindsNothingUpToOnceASecond() {
        List<Long> waits = new ArrayList<>();
        long wait = ProjectionWorker.POLL_MILLIS;
        for (int i = 0; i < 6; i++) {
            waits.add(wait);
            wait = ProjectionWorker.nextIdleWait(wait);
        }
        assertThat(waits).containsExactly(200L, 400L, 800L, 1_000L, 1_000L, 1_000L);
    }

    record Noted(String text) {}

    /**
     * A handler's own database calls run on the worker's thread: an interrupt there, inside an embedded H2 database's
     * file I/O, would close that database for the whole JVM. Stopping waits for the page in hand instead.
     */
    @Test
    void stoppingWaitsForThePageInHandAndDoesNotInterruptTheHandler() throws Exception {
        InMemoryShardingStore store = new InMemoryShardingStore();
        EventCodec codec = new EventCodec("note", Noted.class, List.of(), 65536);
        long epoch = store.nextEpoch("note", 0).get(10, TimeUnit.SECONDS);
        store.appendEvents("note", "n-1", 0, epoch, 0, List.of(codec.encode(new Noted("a"), Set.of())), null, null)
                .get(10, TimeUnit.SECONDS);
        CountDownLatch handling = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicBoolean handled = new AtomicBoolean();
        ProjectionHandler handler = page -> {
            handling.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                interrupted.set(true);
                throw e;
            }
            handled.set(true);
        };
        DaemonWorker.DaemonHost host = new DaemonWorker.DaemonHost() {
            @Override
            public ShardingStore store() {
                return store;
            }

            @Override
            public boolean running() {
                return true;
            }

            @Override
            public ShardingMetrics metrics() {
                return ShardingMetrics.NONE;
            }

            @Override
            public DaemonWorker.SourceType source(String typeName) {
                return new DaemonWorker.SourceType(codec, 1);
            }
        };
        ProjectionWorker worker = new ProjectionWorker("notes", 0, "note", 0, 0, codec, host, handler, null);
        worker.start();
        assertThat(handling.await(10, TimeUnit.SECONDS)).isTrue();

        Thread closing = new Thread(() -> {
            try {
                worker.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        closing.start();
        Awaitility.await("the close waits for the worker")
                .atMost(Duration.ofSeconds(10))
                .until(() -> closing.getState() == Thread.State.TIMED_WAITING);
        release.countDown();
        closing.join(10_000);

        assertThat(closing.isAlive()).isFalse();
        assertThat(interrupted).as("the handler was interrupted").isFalse();
        assertThat(handled).as("the page in hand was handled to its end").isTrue();
        assertThat(store.projectionOffset("notes", 0).get(10, TimeUnit.SECONDS))
                .as("and its offset saved")
                .isEqualTo(1);
    }
}
