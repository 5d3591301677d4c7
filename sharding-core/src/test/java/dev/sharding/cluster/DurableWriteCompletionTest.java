package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.test.ControllableStore;
import dev.sharding.test.TestCluster;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What happens to an entity's mailbox when the write of its state completes: a message that arrived meanwhile is
 * taken next, in order; with nothing waiting, the mailbox is released on the completing thread, without a task on
 * the entity executor to run it (the one task is the ask's completion, which never runs on the store's thread), and
 * the next message still finds the entity.
 */
class DurableWriteCompletionTest {

    private final ControllableStore store = new ControllableStore();

    private final CountingExecutor executor = new CountingExecutor();

    private final TestCluster cluster = new TestCluster(
            s -> ShardingNode.builder(s).entityType(Wallet.type()).store(store).executor(executor));

    @AfterEach
    void stop() {
        store.release();
        cluster.close();
        executor.shutdownNow();
    }

    @Test
    void aMessageThatArrivesDuringTheWriteIsTakenAfterItAndAnEmptyMailboxIsReleasedWithoutATask() throws Exception {
        ShardingNode node = cluster.startNode();
        ShardRegion<Wallet> region = node.region(Wallet.class);
        assertThat(deposit(region, 1).get(10, TimeUnit.SECONDS).amount()).isEqualTo(1);

        // a deposit waits in the mailbox while the one before it is written
        store.holdWrites((id, epoch) -> id.equals("h"));
        CompletableFuture<Wallet.Reply> first = deposit(region, 10);
        awaitHeld(1);
        CompletableFuture<Wallet.Reply> second = deposit(region, 100);
        assertThat(first).as("no reply before the write is durable").isNotDone();
        assertThat(second).isNotDone();
        store.release();
        assertThat(first.get(10, TimeUnit.SECONDS).amount()).isEqualTo(11);
        assertThat(second.get(10, TimeUnit.SECONDS).amount()).isEqualTo(111);

        // nothing waits when the write completes: the completing thread releases the mailbox itself, and hands only
        // the caller's future to the entity executor
        store.holdWrites((id, epoch) -> id.equals("h"));
        CompletableFuture<Wallet.Reply> third = deposit(region, 1000);
        awaitHeld(2);
        long tasks = executor.tasks.get();
        store.release();
        assertThat(third.get(10, TimeUnit.SECONDS).amount()).isEqualTo(1111);
        assertThat(executor.tasks.get())
                .as("entity executor tasks after the write completed with an empty mailbox: the ask's completion")
                .isEqualTo(tasks + 1);

        // and the entity takes the next message as usual
        assertThat(deposit(region, 10000).get(10, TimeUnit.SECONDS).amount()).isEqualTo(11111);
        assertThat(executor.tasks.get()).isGreaterThan(tasks);
    }

    private static CompletableFuture<Wallet.Reply> deposit(ShardRegion<Wallet> region, long amount) {
        return region.ask("h", new Wallet.Deposit(amount), Wallet.Reply.class);
    }

    private void awaitHeld(long count) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.held() >= count);
    }

    /** A pool of two threads that counts the tasks given to it. */
    private static final class CountingExecutor extends ThreadPoolExecutor {

        final AtomicLong tasks = new AtomicLong();

        CountingExecutor() {
            super(2, 2, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>());
        }

        @Override
        public void execute(Runnable command) {
            tasks.incrementAndGet();
            super.execute(command);
        }
    }
}
