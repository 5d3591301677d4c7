package dev.sharding.internal;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.spi.LeastShardAllocationStrategy;
import dev.sharding.spi.MessageTracing;
import dev.sharding.spi.ShardingMetrics;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.InMemoryNetwork;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A thread of the node held by one piece of work longer than the blocked-thread threshold is reported once: one WARN
 * with its stack, one count in the metrics, however long it stays held.
 */
class BlockedThreadsTest {

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();

    private final Map<String, LongAdder> blocked = new ConcurrentHashMap<>();

    private final CountDownLatch release = new CountDownLatch(1);

    private NodeRuntime node;

    @BeforeEach
    void captureLog() {
        log.start();
        ((Logger) LoggerFactory.getLogger(BlockedThreads.class)).addAppender(log);
    }

    @AfterEach
    void stop() {
        release.countDown();
        ((Logger) LoggerFactory.getLogger(BlockedThreads.class)).detachAppender(log);
        if (node != null) {
            node.stop(Duration.ofSeconds(5));
        }
    }

    @Test
    void aHeldControlThreadIsReportedOnceWithItsStack() throws Exception {
        node = start(Duration.ofMillis(100));
        CountDownLatch holding = new CountDownLatch(1);
        node.control().execute(() -> holdTheControlThread(holding));
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();

        Awaitility.await("the held control thread reported")
                .atMost(Duration.ofSeconds(10))
                .until(() -> count("control") == 1);
        // still held for many more checks: no second report
        Awaitility.await("one report while it stays held")
                .during(Duration.ofMillis(600))
                .atMost(Duration.ofSeconds(2))
                .until(() -> count("control") == 1 && warnings().size() == 1);
        ILoggingEvent warning = warnings().get(0);
        assertThat(warning.getFormattedMessage())
                .contains("sharding-control", "control thread", "blocked-thread-threshold of 100 ms");
        assertThat(warning.getThrowableProxy().getStackTraceElementProxyArray())
                .anySatisfy(frame -> assertThat(frame.getSTEAsString()).contains("holdTheControlThread"));

        // the next piece of work that holds it is another report
        release.countDown();
        CountDownLatch again = new CountDownLatch(1);
        CountDownLatch holdingAgain = new CountDownLatch(1);
        node.control().execute(() -> {
            holdingAgain.countDown();
            awaitQuietly(again);
        });
        assertThat(holdingAgain.await(10, TimeUnit.SECONDS)).isTrue();
        Awaitility.await("the second hold reported")
                .atMost(Duration.ofSeconds(10))
                .until(() -> count("control") == 2);
        again.countDown();
        assertThat(count("transport")).isZero();
    }

    @Test
    void theNodesOwnShortTasksAreNotReported() throws Exception {
        node = start(Duration.ofMillis(100));
        for (int i = 0; i < 20; i++) {
            node.control().submit(() -> {}).get(10, TimeUnit.SECONDS);
        }
        Awaitility.await("no report")
                .during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(2))
                .until(() -> blocked.isEmpty() && warnings().isEmpty());
    }

    private void holdTheControlThread(CountDownLatch holding) {
        holding.countDown();
        awaitQuietly(release);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private long count(String role) {
        LongAdder a = blocked.get(role);
        return a == null ? 0 : a.sum();
    }

    private List<ILoggingEvent> warnings() {
        return log.list.stream().filter(e -> e.getLevel() == Level.WARN).toList();
    }

    private NodeRuntime start(Duration threshold) throws Exception {
        ShardingMetrics metrics = new ShardingMetrics() {
            @Override
            public void blockedThread(String thread) {
                blocked.computeIfAbsent(thread, k -> new LongAdder()).increment();
            }
        };
        Set<Class<?>> types = new HashSet<>(EntityHandlers.of(Wallet.class).declaredTypes());
        types.add(Wallet.Balance.class);
        NodeRuntime n = new NodeRuntime(
                ShardingSettings.defaults().withNodeName("a").withBlockedThreadThreshold(threshold),
                List.of(Wallet.type()),
                new LeastShardAllocationStrategy(),
                new JacksonMessageCodec(types, 1 << 20),
                new InMemoryNetwork().transport("a"),
                new InMemoryShardingStore(),
                null,
                null,
                false,
                metrics,
                MessageTracing.NONE);
        n.start();
        Awaitility.await("serving").atMost(Duration.ofSeconds(20)).until(() -> n.isRegistered() && n.serving());
        return n;
    }
}
