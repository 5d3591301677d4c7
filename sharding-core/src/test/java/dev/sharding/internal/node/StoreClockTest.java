package dev.sharding.internal.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.internal.entity.AppliedMessages;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.ForwardingStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Nodes whose wall clocks disagree stamp and judge the ids of applied messages by one clock, the store's: a node an
 * hour ahead must not take every id as expired, nor a node an hour behind keep them an hour too long. Hand-fed clocks.
 */
class StoreClockTest {

    private static final long HOUR = TimeUnit.HOURS.toMillis(1);

    private final AtomicLong storeTime = new AtomicLong(1_000_000_000_000L);

    private final Store store = new Store(() -> CompletableFuture.completedFuture(storeTime.get()));

    @Test
    void twoNodesWithClocksAnHourApartReadTheStoresTime() {
        StoreClock ahead = new StoreClock(store, () -> storeTime.get() + HOUR);
        StoreClock behind = new StoreClock(store, () -> storeTime.get() - HOUR);

        ahead.millis(); // the first reading asks the store
        behind.millis();

        assertThat(ahead.millis()).isEqualTo(storeTime.get());
        assertThat(behind.millis()).isEqualTo(storeTime.get());
        assertThat(ahead.offsetMillis()).isEqualTo(-HOUR);

        // an id stamped by the node behind, judged by the node ahead half a window later, is still inside it
        AppliedMessages window = AppliedMessages.NONE.plus("order-1", behind.millis(), null, 100, HOUR);
        storeTime.addAndGet(HOUR / 2);
        assertThat(window.find("order-1", ahead.millis(), HOUR)).isNotNull();
        storeTime.addAndGet(HOUR);
        assertThat(window.find("order-1", ahead.millis(), HOUR))
                .as("and expired after it")
                .isNull();
    }

    @Test
    void aStoreThatCannotAnswerLeavesTheLastOffsetAndItIsAskedAgainLater() {
        AtomicLong wall = new AtomicLong(storeTime.get() + 5_000);
        StoreClock clock = new StoreClock(store, wall::get);
        clock.millis();
        assertThat(clock.offsetMillis()).isEqualTo(-5_000);

        store.answer = () -> CompletableFuture.failedFuture(new IllegalStateException("database down"));
        wall.addAndGet(StoreClock.REFRESH_MILLIS);
        storeTime.addAndGet(StoreClock.REFRESH_MILLIS);
        assertThat(clock.millis()).isEqualTo(storeTime.get());
        assertThat(clock.offsetMillis()).isEqualTo(-5_000);

        store.answer = () -> CompletableFuture.completedFuture(storeTime.get() + 1_000);
        clock.millis();
        assertThat(clock.offsetMillis())
                .as("not asked again before the interval")
                .isEqualTo(-5_000);
        wall.addAndGet(StoreClock.REFRESH_MILLIS);
        storeTime.addAndGet(StoreClock.REFRESH_MILLIS);
        clock.millis();
        assertThat(clock.offsetMillis()).isEqualTo(-4_000);
    }

    @Test
    void aStoreInOneJvmAnswersWithItsClock() throws Exception {
        long before = System.currentTimeMillis();
        long t = new InMemoryShardingStore().currentTimeMillis().get(1, TimeUnit.SECONDS);
        assertThat(t).isBetween(before, System.currentTimeMillis());
        assertThat(Duration.ofMillis(StoreClock.REFRESH_MILLIS)).isEqualTo(Duration.ofMinutes(1));
    }

    /** A store whose clock the test sets. */
    private static final class Store extends ForwardingStore {

        volatile Supplier<CompletableFuture<Long>> answer;

        Store(Supplier<CompletableFuture<Long>> answer) {
            super(new InMemoryShardingStore());
            this.answer = answer;
        }

        @Override
        public CompletableFuture<Long> currentTimeMillis() {
            return answer.get();
        }
    }
}
