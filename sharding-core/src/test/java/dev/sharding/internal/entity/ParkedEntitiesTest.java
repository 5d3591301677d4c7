package dev.sharding.internal.entity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Entities parked while the node does not serve run again exactly once: when the node serves again, when their shard
 * is dropped, and also when either happened while they were parking.
 */
class ParkedEntitiesTest {

    /** An entity that counts how often it was run again. */
    private static final class Entity implements ParkedEntities.Parked {

        final AtomicBoolean dropped = new AtomicBoolean();

        final AtomicInteger resumed = new AtomicInteger();

        @Override
        public boolean shardDropped() {
            return dropped.get();
        }

        @Override
        public void resume() {
            resumed.incrementAndGet();
        }
    }

    private final AtomicBoolean serving = new AtomicBoolean();

    private final ParkedEntities parked = new ParkedEntities(serving::get);

    @Test
    void anEntityParkedWhileTheNodeDoesNotServeWaitsUntilAllAreRunAgain() {
        Entity e = new Entity();
        parked.park(e);
        assertThat(e.resumed).hasValue(0);
        assertThat(parked.size()).isOne();

        parked.resumeAll();
        assertThat(e.resumed).hasValue(1);
        assertThat(parked.size()).isZero();
        parked.resumeAll();
        assertThat(e.resumed).hasValue(1);
    }

    @Test
    void anEntityWhoseShardWasDroppedBeforeItParkedRunsAtOnce() {
        // the drop ran the parked entities before this one got into the queue: no one would run it again
        Entity e = new Entity();
        e.dropped.set(true);
        parked.park(e);
        assertThat(e.resumed).hasValue(1);
        assertThat(parked.size()).isZero();
    }

    @Test
    void anEntityThatParksWhenTheNodeServesAgainRunsAtOnce() {
        Entity e = new Entity();
        serving.set(true);
        parked.park(e);
        assertThat(e.resumed).hasValue(1);
        assertThat(parked.size()).isZero();
    }

    @Test
    void anEntityParkingWhileItsShardIsDroppedRunsExactlyOnce() throws Exception {
        CyclicBarrier start = new CyclicBarrier(2);
        for (int i = 0; i < 5_000; i++) {
            Entity e = new Entity();
            CompletableFuture<Void> dropping = CompletableFuture.runAsync(() -> {
                await(start);
                e.dropped.set(true); // the shard is dropped, then every parked entity runs once
                parked.resumeAll();
            });
            await(start);
            parked.park(e);
            dropping.get(10, TimeUnit.SECONDS);
            assertThat(e.resumed).as("runs of the entity in round %d", i).hasValue(1);
            assertThat(parked.size()).isZero();
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
