package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.BufferFullException;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.test.SequenceChecker;
import dev.sharding.test.TestCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Per-sender order end to end: many senders on every node, messages first buffered (no shard has a home when they
 * start), then sent locally or to remote regions.
 */
class OrderingClusterTest {

    private static final int SENDERS = 8;

    private static final int MESSAGES = 10_000;

    private static final List<String> ENTITIES = List.of("s-1", "s-2", "s-3", "s-4", "s-5");

    private final TestCluster cluster = TestCluster.of(SequenceChecker.type());

    private final AtomicLong refusals = new AtomicLong();

    private final ExecutorService senders = Executors.newFixedThreadPool(SENDERS);

    @AfterEach
    void stop() {
        senders.shutdownNow();
        cluster.close();
    }

    /**
     * While the first messages wait for shard homes, fast senders can fill the region's buffer; a refused tell was
     * not sent at all, so sending it again keeps the order.
     */
    private void tellAcceptingBackPressure(ShardRegion<SequenceChecker> region, String id, Object message) {
        while (true) {
            try {
                region.tell(id, message);
                return;
            } catch (BufferFullException full) {
                refusals.incrementAndGet();
                LockSupport.parkNanos(1_000_000);
            }
        }
    }

    @Test
    void everySendersOrderIsKeptThroughBufferingLocalAndRemoteDelivery() throws Exception {
        sendAndCheck(UnaryOperator.identity());
    }

    /** The same with the cluster secret: every message sealed and opened, replays refused, none lost or reordered. */
    @Test
    void everySendersOrderIsKeptWithTheClusterSecret() throws Exception {
        sendAndCheck(s -> s.withJgroups(s.jgroups().withSecret("ordering-test-secret-0123456789")));
    }

    private void sendAndCheck(UnaryOperator<ShardingSettings> settings) throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3, settings);
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int s = 0; s < SENDERS; s++) {
            String sender = "sender-" + s;
            ShardRegion<SequenceChecker> region = nodes.get(s % nodes.size()).region(SequenceChecker.class);
            done.add(CompletableFuture.runAsync(
                    () -> {
                        for (long n = 1; n <= MESSAGES; n++) {
                            for (String id : ENTITIES) {
                                tellAcceptingBackPressure(region, id, new SequenceChecker.Seq(sender, n));
                            }
                        }
                    },
                    senders));
        }
        long start = System.nanoTime();
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        System.out.printf(
                "%d tells sent in %d ms, %d refused for a full buffer and sent again%n",
                (long) SENDERS * MESSAGES * ENTITIES.size(), (System.nanoTime() - start) / 1_000_000, refusals.get());
        // an ask from each sender's node comes after its tells, so once it answers they have all arrived
        for (String id : ENTITIES) {
            SequenceChecker.Report report = null;
            for (ShardingNode node : nodes) {
                report = node.region(SequenceChecker.class)
                        .ask(id, new SequenceChecker.GetReport(), SequenceChecker.Report.class)
                        .get(30, TimeUnit.SECONDS);
            }
            assertThat(report.violations()).as("order violations at %s", id).isZero();
            assertThat(report.received()).as("messages received by %s", id).isEqualTo((long) SENDERS * MESSAGES);
            assertThat(report.last())
                    .hasSize(SENDERS)
                    .allSatisfy((sender, last) -> assertThat(last).isEqualTo(MESSAGES));
        }
    }
}
