package dev.sharding.bench.jmh;

import dev.sharding.internal.transport.ClusterGuard;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.Message;
import org.jgroups.protocols.UnicastHeader3;
import org.jgroups.stack.Protocol;
import org.jgroups.util.UUID;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the cluster secret costs per JGroups message: {@code seal} is what a sending node's guard does to one message
 * (serialise it with its headers, encrypt it with AES-GCM, wrap it), {@code sealAndOpen} adds what the receiving
 * node's guard does (decrypt, check the replay window, deserialise). The payload sizes are a lone ask's frame and a
 * batch of frames.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class GuardBenchmark {

    /** The payload of the JGroups message, in bytes. */
    @Param({"100", "8000"})
    public int payload;

    private ClusterGuard sender;

    private ClusterGuard receiver;

    private Message sealed;

    private Message opened;

    private Message msg;

    private long seqno;

    private final Address from = UUID.randomUUID();

    private final Address to = UUID.randomUUID();

    /** Two guards of one cluster key, the sender's output captured instead of sent. */
    @Setup
    public void setUp() {
        byte[] key = new byte[32];
        ThreadLocalRandom.current().nextBytes(key);
        sender = new ClusterGuard(key, "bench");
        receiver = new ClusterGuard(key, "bench");
        sender.setDownProtocol(new Protocol() {
            @Override
            public Object down(Message m) {
                sealed = m;
                return null;
            }
        });
        receiver.setUpProtocol(new Protocol() {
            @Override
            public Object up(Message m) {
                opened = m;
                return null;
            }
        });
        msg = new BytesMessage(to, new byte[payload]).setSrc(from);
    }

    /** One message sealed. */
    @Benchmark
    public Message seal() {
        msg.putHeader((short) 75, UnicastHeader3.createDataHeader(++seqno, (short) 1, false));
        sender.down(msg);
        return sealed;
    }

    /** One message sealed and opened. */
    @Benchmark
    public Message sealAndOpen() {
        msg.putHeader((short) 75, UnicastHeader3.createDataHeader(++seqno, (short) 1, false));
        sender.down(msg);
        receiver.up(sealed);
        return opened;
    }
}
