package dev.sharding.bench.jmh;

import dev.sharding.EntityType;
import dev.sharding.bench.Total;
import dev.sharding.internal.protocol.EntityEnvelope;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Handing messages to entities hosted on this node (a single-node cluster, as in W1): {@code tellLocal} sends one
 * tell to each of the 1,000 entities and waits until all were handled, so the figure per message covers the caller's
 * routing, the mailbox, the executor hand-off and the handler; {@code receiveRemoteTell} does the same from frames as
 * they arrive from another node (the receiving side of W2: decoding, routing, mailbox, handler); {@code askLocal} is
 * one local ask and its reply.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class MailboxBenchmark {

    private JmhNode node;

    private byte[][] frames;

    private long sent;

    private int next;

    /** Starts the node and encodes one tell frame per entity. @throws Exception if it does not start */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        node = JmhNode.alone();
        String type = node.region().typeName();
        frames = new byte[JmhNode.ENTITIES][];
        for (int i = 0; i < JmhNode.ENTITIES; i++) {
            String id = node.ids()[i];
            byte[] payload = node.codec().encode(node.adds()[i]);
            frames[i] = node.protocol()
                    .encode(new EntityEnvelope(
                            type, id, EntityType.shardOf(id, 100), 0, null, payload, 0, payload.length));
        }
        sent = JmhCounter.HANDLED.get();
    }

    /** Stops the node. */
    @TearDown(Level.Trial)
    public void tearDown() {
        node.close();
    }

    /** A tell to each entity, then waits until all were handled. */
    @Benchmark
    @OperationsPerInvocation(JmhNode.ENTITIES)
    public void tellLocal() {
        String[] ids = node.ids();
        for (int i = 0; i < JmhNode.ENTITIES; i++) {
            node.region().tell(ids[i], node.adds()[i]);
        }
        sent += JmhNode.ENTITIES;
        JmhCounter.awaitHandled(sent);
    }

    /** A tell frame from the other node to each entity, then waits until all were handled. */
    @Benchmark
    @OperationsPerInvocation(JmhNode.ENTITIES)
    public void receiveRemoteTell() {
        for (int i = 0; i < JmhNode.ENTITIES; i++) {
            byte[] f = frames[i];
            node.runtime().onFrame(JmhNode.REMOTE, f, 0, f.length);
        }
        sent += JmhNode.ENTITIES;
        JmhCounter.awaitHandled(sent);
    }

    /** One ask to the next entity and its reply. @return the reply */
    @Benchmark
    public Total askLocal() {
        int i = next;
        next = i + 1 == JmhNode.ENTITIES ? 0 : i + 1;
        Total t = node.region().ask(node.ids()[i], node.adds()[i], Total.class).join();
        sent++;
        return t;
    }
}
