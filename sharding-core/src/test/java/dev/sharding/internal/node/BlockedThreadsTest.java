package dev.sharding.internal.node;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.internal.entity.BlockedThreads;
import dev.sharding.internal.entity.EntityHandlers;
import dev.sharding.internal.region.Region;
import dev.sharding.spi.LeastShardAllocationStrategy;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.MessageTracing;
import dev.sharding.spi.ShardingMetrics;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.InMemoryNetwork;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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

    private static final Duration THRESHOLD = Duration.ofMillis(300);

    private final InMemoryShardingStore store = new InMemoryShardingStore();

    private final List<NodeRuntime> others = new ArrayList<>();

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
        others.forEach(n -> n.stop(Duration.ofSeconds(5)));
        if (node != null) {
            node.stop(Duration.ofSeconds(5));
        }
    }

    @Test
    void aHeldControlThreadIsReportedOnceWithItsStack() throws Exception {
        node = start(new InMemoryNetwork(), "a", codec(), THRESHOLD);
        long before = count("control"); // startup's first tasks may load many classes on it
        CountDownLatch holding = new CountDownLatch(1);
        node.control().execute(() -> holdTheControlThread(holding));
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();

        Awaitility.await("the held control thread reported")
                .atMost(Duration.ofSeconds(10))
                .until(() -> count("control") == before + 1);
        // still held for many more checks: no second report
        Awaitility.await("one report while it stays held")
                .during(Duration.ofMillis(600))
                .atMost(Duration.ofSeconds(2))
                .until(() -> count("control") == before + 1 && held().size() == 1);
        ILoggingEvent warning = held().get(0);
        assertThat(warning.getFormattedMessage())
                .contains("sharding-control", "control thread of node a", "blocked-thread-threshold of 300 ms");
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
                .until(() -> count("control") == before + 2);
        again.countDown();
        assertThat(count("transport")).isZero();
    }

    @Test
    void theNodesOwnShortTasksAreNotReported() throws Exception {
        node = start(new InMemoryNetwork(), "a", codec(), THRESHOLD);
        long before = count("control");
        for (int i = 0; i < 20; i++) {
            node.control().submit(() -> {}).get(10, TimeUnit.SECONDS);
        }
        Awaitility.await("no report")
                .during(Duration.ofMillis(1000))
                .atMost(Duration.ofSeconds(3))
                .until(() -> count("control") == before);
    }

    @Test
    void aHeldTransportThreadIsReported() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        CountDownLatch decoding = new CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean();
        JacksonMessageCodec jackson = codec();
        MessageCodec holding = new MessageCodec() {
            @Override
            public byte[] encode(Object value) {
                return jackson.encode(value);
            }

            @Override
            public Object decode(byte[] buffer, int offset, int length) {
                if (armed.compareAndSet(true, false)) {
                    decoding.countDown();
                    awaitQuietly(release); // holds the transport thread that delivers the frame
                }
                return jackson.decode(buffer, offset, length);
            }
        };
        node = start(network, "a", jackson, THRESHOLD);
        NodeRuntime b = start(network, "b", holding, THRESHOLD);
        others.add(b);
        Awaitility.await("both serving").atMost(Duration.ofSeconds(20)).until(() -> b.isRegistered() && b.serving());
        @SuppressWarnings("unchecked")
        Region<Wallet> region = (Region<Wallet>) node.regions().get("wallet");
        String onB = null;
        for (int i = 0; onB == null; i++) {
            Wallet.Reply reply = region.ask("w" + i, new Wallet.Deposit(1), Wallet.Reply.class)
                    .get(10, TimeUnit.SECONDS);
            if (reply.node().equals("b")) {
                onB = reply.id();
            }
        }
        armed.set(true);
        region.tell(onB, new Wallet.Deposit(1));
        assertThat(decoding.await(10, TimeUnit.SECONDS)).isTrue();
        Awaitility.await("the held transport thread reported")
                .atMost(Duration.ofSeconds(10))
                .until(() -> count("transport") == 1);
        assertThat(warnings())
                .anySatisfy(w -> assertThat(w.getFormattedMessage()).contains("inbox-b", "transport thread of node b"))
                .anySatisfy(w -> assertThat(w.getThrowableProxy().getStackTraceElementProxyArray())
                        .anySatisfy(f -> assertThat(f.getSTEAsString()).contains("InboundTraffic.onFrame")));
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

    /** The warnings whose stack shows the test holding the control thread. */
    private List<ILoggingEvent> held() {
        return warnings().stream()
                .filter(e -> e.getThrowableProxy() != null
                        && Arrays.stream(e.getThrowableProxy().getStackTraceElementProxyArray())
                                .anyMatch(f -> f.getSTEAsString().contains("holdTheControlThread")))
                .toList();
    }

    private static JacksonMessageCodec codec() {
        Set<Class<?>> types = new HashSet<>(EntityHandlers.of(Wallet.class).declaredTypes());
        types.add(Wallet.Balance.class);
        return new JacksonMessageCodec(types, 1 << 20);
    }

    private NodeRuntime start(InMemoryNetwork network, String name, MessageCodec codec, Duration threshold)
            throws Exception {
        ShardingMetrics metrics = new ShardingMetrics() {
            @Override
            public void blockedThread(String thread) {
                blocked.computeIfAbsent(thread, k -> new LongAdder()).increment();
            }
        };
        NodeRuntime n = new NodeRuntime(
                ShardingSettings.defaults().withNodeName(name).withBlockedThreadThreshold(threshold),
                List.of(Wallet.type()),
                new LeastShardAllocationStrategy(),
                codec,
                network.transport(name),
                store,
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
