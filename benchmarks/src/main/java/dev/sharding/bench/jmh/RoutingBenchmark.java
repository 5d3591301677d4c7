package dev.sharding.bench.jmh;

import dev.sharding.bench.Total;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The region's routing step on a node whose shards all live on another node with a known home (the proxy-only node
 * A of W2-W4): {@code tellRemoteKnownShard} is everything {@code ShardRegion.tell} does up to handing the frame to
 * the transport (checks, shard, slot, message codec, envelope, frame); the fake transport drops it.
 * {@code askRemoteRoundTrip} is a whole ask without the network: the asking side, plus the other node's part as the
 * fake transport plays it (decoding the frame, encoding a {@code Total} reply, on the calling thread), plus the reply's
 * decoding and the completion of the future on the node's executor.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class RoutingBenchmark {

    /** A node whose shards live on the other node; envelopes are only counted. */
    @State(Scope.Benchmark)
    public static class Tells {

        JmhNode node;

        int next;

        /** Starts the node. @throws Exception if it does not start */
        @Setup(Level.Trial)
        public void setUp() throws Exception {
            node = JmhNode.withRemoteHost();
            node.transport().answerAsks(false);
        }

        /** Stops the node. */
        @TearDown(Level.Trial)
        public void tearDown() {
            node.close();
        }
    }

    /** A node whose shards live on the other node, which answers every ask at once. */
    @State(Scope.Benchmark)
    public static class Asks {

        JmhNode node;

        int next;

        /** Starts the node. @throws Exception if it does not start */
        @Setup(Level.Trial)
        public void setUp() throws Exception {
            node = JmhNode.withRemoteHost();
        }

        /** Stops the node. */
        @TearDown(Level.Trial)
        public void tearDown() {
            node.close();
        }
    }

    /** One tell to the next entity, round robin. @param s the node */
    @Benchmark
    public void tellRemoteKnownShard(Tells s) {
        int i = s.next;
        s.next = i + 1 == JmhNode.ENTITIES ? 0 : i + 1;
        s.node.region().tell(s.node.ids()[i], s.node.adds()[i]);
    }

    /** One ask to the next entity, waiting for its reply. @param s the node @return the reply */
    @Benchmark
    public Total askRemoteRoundTrip(Asks s) {
        int i = s.next;
        s.next = i + 1 == JmhNode.ENTITIES ? 0 : i + 1;
        return s.node.region()
                .ask(s.node.ids()[i], s.node.adds()[i], Total.class)
                .join();
    }
}
