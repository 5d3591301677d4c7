package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.BackpressureSettings;
import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityType;
import dev.sharding.ShardingNode;
import dev.sharding.test.LoopbackTcp;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.jgroups.protocols.BasicTCP;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two nodes on the default TCP stack, with socket buffers far smaller than what flow control lets be in flight, flood
 * each other with large messages both ways at once, and ask each other while they do. The stack delivers on the
 * threads that read the sockets, so this is the case where a reading thread that waited to write (an
 * acknowledgement, a flow-control credit, a frame of ours) while the other node's reading thread waited likewise
 * would stop both connections for good. Every message must arrive, and every ask must be answered.
 */
class TwoWayFloodClusterTest {

    private static final int SOCKET_BUFFER = 4096;

    private static final int CHUNK = 16 * 1024;

    private static final int CHUNKS_PER_SENDER = 3000;

    private static final int SENDERS_PER_NODE = 2;

    private static final Duration NO_PROGRESS_LIMIT = Duration.ofSeconds(30);

    private static final Map<String, AtomicLong> RECEIVED = new ConcurrentHashMap<>();

    private final List<ShardingNode> nodes = new ArrayList<>();

    /** Counts the bytes it receives, per node. */
    public static class Sink {

        private final EntityContext context;

        Sink(EntityContext context) {
            this.context = context;
        }

        static EntityType<Sink> type() {
            return EntityType.of(Sink.class, Sink::new);
        }

        /** Takes a chunk. */
        @EntityHandler
        public void on(Chunk chunk) {
            RECEIVED.computeIfAbsent(context.nodeName(), k -> new AtomicLong()).addAndGet(chunk.data().length);
        }

        /** Says where it runs. */
        @EntityHandler
        public Where on(Locate locate) {
            return new Where(context.nodeName());
        }
    }

    /** A chunk of bytes. @param data the bytes */
    public record Chunk(byte[] data) {}

    /** Asks where an entity runs. */
    public record Locate() {}

    /** Where an entity runs. @param node the node */
    public record Where(String node) {}

    @AfterEach
    void stop() throws InterruptedException {
        // stuck connections would hold a graceful leave (and even a channel's close) for ever: wait a minute at most
        Thread closer = new Thread(() -> nodes.forEach(ShardingNode::close), "flood-close");
        closer.setDaemon(true);
        closer.start();
        closer.join(TimeUnit.MINUTES.toMillis(1));
        RECEIVED.clear();
    }

    @Test
    void twoNodesFloodingEachOtherThroughSmallSocketBuffersDeliverEverything() throws Exception {
        LoopbackTcp.start(
                LoopbackTcp.nodes("flood", 2),
                // senders may wait as long as it takes (no tell is dropped for backpressure), and nobody is
                // suspected for being behind: this test is about connections never stopping for good
                settings -> ShardingNode.builder(settings.withBackpressure(BackpressureSettings.DEFAULT
                                .withMaxWait(Duration.ofSeconds(60))
                                .withSuspectAfter(Duration.ZERO)))
                        .entityType(Sink.type())
                        .channelCustomizer(
                                ch -> ((BasicTCP) ch.getProtocolStack().getTransport())
                                        .setSendBufSize(SOCKET_BUFFER)
                                        .setRecvBufSize(SOCKET_BUFFER)),
                nodes);

        // entities on each node, found by asking through the other one
        Map<String, List<String>> homes = new ConcurrentHashMap<>();
        for (int i = 0; homes.values().stream().mapToInt(List::size).min().orElse(0) < 4 || homes.size() < 2; i++) {
            String id = "sink-" + i;
            String node = nodes.get(i % 2)
                    .region(Sink.class)
                    .ask(id, new Locate(), Where.class)
                    .get(10, TimeUnit.SECONDS)
                    .node();
            homes.computeIfAbsent(node, k -> new CopyOnWriteArrayList<>()).add(id);
        }

        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> senders = new ArrayList<>();
        AtomicLong answered = new AtomicLong();
        for (ShardingNode from : nodes) {
            ShardingNode to = nodes.get(0) == from ? nodes.get(1) : nodes.get(0);
            List<String> targets = homes.get(to.nodeName());
            for (int s = 0; s < SENDERS_PER_NODE; s++) {
                int sender = s;
                Thread t = new Thread(
                        () -> {
                            try {
                                byte[] data = new byte[CHUNK];
                                for (int i = 0; i < CHUNKS_PER_SENDER; i++) {
                                    String id = targets.get((i + sender) % targets.size());
                                    from.region(Sink.class).tell(id, new Chunk(data));
                                    if (i % 100 == 0) {
                                        // an ask every hundred chunks: its reply crosses the flood the other way
                                        from.region(Sink.class)
                                                .ask(id, new Locate(), Where.class, Duration.ofSeconds(60))
                                                .get(90, TimeUnit.SECONDS);
                                        answered.incrementAndGet();
                                    }
                                }
                            } catch (Throwable e) {
                                failures.add(e);
                            }
                        },
                        "flood-" + from.nodeName() + "-" + s);
                t.setDaemon(true);
                senders.add(t);
                t.start();
            }
        }

        long expected = (long) CHUNK * CHUNKS_PER_SENDER * SENDERS_PER_NODE;
        long[] last = {-1, System.nanoTime()}; // the last total seen, and when it last grew
        Awaitility.await("every chunk delivered both ways")
                .atMost(Duration.ofMinutes(10))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    if (received(nodes.get(0)) == expected && received(nodes.get(1)) == expected) {
                        return true;
                    }
                    long total = received(nodes.get(0)) + received(nodes.get(1)) + answered.get();
                    if (total != last[0]) {
                        last[0] = total;
                        last[1] = System.nanoTime();
                    } else if (System.nanoTime() - last[1] > NO_PROGRESS_LIMIT.toNanos()) {
                        throw new AssertionError("No progress for " + NO_PROGRESS_LIMIT.toSeconds() + " s: received "
                                + received(nodes.get(0)) + " and " + received(nodes.get(1)) + " of " + expected
                                + " bytes, " + answered.get() + " asks answered, failures " + failures + "\n"
                                + threads());
                    }
                    return false;
                });
        for (Thread t : senders) {
            t.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(failures).isEmpty();
        assertThat(answered.get()).isEqualTo((long) nodes.size() * SENDERS_PER_NODE * (CHUNKS_PER_SENDER / 100));
    }

    private static long received(ShardingNode node) {
        AtomicLong n = RECEIVED.get(node.nodeName());
        return n == null ? 0 : n.get();
    }

    /** The stacks of the threads that read and write the connections, to see who waits on whom. */
    private static String threads() {
        return Arrays.stream(ManagementFactory.getThreadMXBean().dumpAllThreads(false, false))
                .filter(t -> t.getThreadName().startsWith("Connection")
                        || t.getThreadName().startsWith("sharding-send")
                        || t.getThreadName().startsWith("flood-")
                        || t.getThreadName().startsWith("jgroups"))
                .map(TwoWayFloodClusterTest::describe)
                .collect(Collectors.joining("\n"));
    }

    private static String describe(ThreadInfo t) {
        StringBuilder b = new StringBuilder(t.getThreadName()).append(' ').append(t.getThreadState());
        for (StackTraceElement e : Arrays.copyOf(t.getStackTrace(), Math.min(12, t.getStackTrace().length))) {
            b.append("\n    at ").append(e);
        }
        return b.toString();
    }
}
