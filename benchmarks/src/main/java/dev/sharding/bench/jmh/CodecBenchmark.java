package dev.sharding.bench.jmh;

import dev.sharding.EntityType;
import dev.sharding.ShardingSettings;
import dev.sharding.bench.Add;
import dev.sharding.bench.Total;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.internal.codec.KnownStrings;
import dev.sharding.internal.protocol.EntityEnvelope;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.internal.protocol.Reply;
import java.util.concurrent.TimeUnit;
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
import tools.jackson.dataformat.smile.SmileMapper;
import tools.jackson.dataformat.smile.SmileWriteFeature;

/**
 * What one message costs on the wire path: the message codec (Jackson Smile behind the class name) and the protocol
 * frame of an {@link EntityEnvelope} around it, each way, and the same for the {@link Reply} of an ask.
 * {@code encodeTellEnvelope} is what the sending region does per remote tell; {@code decodeEnvelope} is what the
 * receiving node does per frame before the entity's mailbox.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class CodecBenchmark {

    /**
     * The Smile mapper of the codec: {@code default} is the codec's own, which turns off Smile's back-references to
     * names seen earlier in the document (a one-record document gains nothing from them, but every generator and
     * parser would allocate their tables); {@code shared-names} turns them back on, for comparison.
     */
    @Param({"default", "shared-names"})
    public String smile;

    private JacksonMessageCodec codec =
            new JacksonMessageCodec(JmhNode.messageTypes(), ShardingSettings.DEFAULT_MAX_PAYLOAD_SIZE);

    /** As a node makes it: the entity type names it runs are read without a new string per frame. */
    private final ProtocolCodec protocol = new ProtocolCodec(
            ShardingSettings.DEFAULT_MAX_PAYLOAD_SIZE, new KnownStrings(java.util.List.of("counter")));

    private final Add add = new Add("e-417", 1);

    private final Total total = new Total("e-417", 12_345, 678);

    private final int shard = EntityType.shardOf("e-417", 100);

    private byte[] tellFrame = new byte[0];

    private byte[] askFrame = new byte[0];

    private byte[] replyFrame = new byte[0];

    /** Makes the codec and encodes the frames the decoding benchmarks read. */
    @Setup
    public void setUp() {
        if (smile.equals("shared-names")) {
            codec = new JacksonMessageCodec(
                    SmileMapper.builder()
                            .enable(SmileWriteFeature.CHECK_SHARED_NAMES)
                            .build(),
                    JmhNode.messageTypes(),
                    ShardingSettings.DEFAULT_MAX_PAYLOAD_SIZE);
        }
        tellFrame = encodeTellEnvelope();
        askFrame = encodeAskEnvelope();
        replyFrame = encodeReply();
    }

    /** @return the message codec's bytes of an {@link Add} */
    @Benchmark
    public byte[] encodeMessage() {
        return codec.encode(add);
    }

    /** @return the frame of a tell: message codec, envelope and frame */
    @Benchmark
    public byte[] encodeTellEnvelope() {
        byte[] payload = codec.encode(add);
        return protocol.encode(
                new EntityEnvelope("counter", add.entityId(), shard, 0, null, payload, 0, payload.length));
    }

    /** @return the frame of an ask, which names the member to reply to */
    @Benchmark
    public byte[] encodeAskEnvelope() {
        byte[] payload = codec.encode(add);
        return protocol.encode(new EntityEnvelope(
                "counter", add.entityId(), shard, 987_654L, JmhNode.SELF, payload, 0, payload.length));
    }

    /** @return the decoded frame of a tell, without the message */
    @Benchmark
    public Object decodeFrameOnly() {
        return protocol.decode(tellFrame, 0, tellFrame.length);
    }

    /** @return the message of a tell frame: frame and message codec */
    @Benchmark
    public Object decodeEnvelope() {
        EntityEnvelope e = (EntityEnvelope) protocol.decode(tellFrame, 0, tellFrame.length);
        return codec.decode(e.payload(), e.payloadOffset(), e.payloadLength());
    }

    /** @return the message of an ask frame */
    @Benchmark
    public Object decodeAskEnvelope() {
        EntityEnvelope e = (EntityEnvelope) protocol.decode(askFrame, 0, askFrame.length);
        return codec.decode(e.payload(), e.payloadOffset(), e.payloadLength());
    }

    /** @return the frame of the reply to an ask */
    @Benchmark
    public byte[] encodeReply() {
        return protocol.encode(new Reply(987_654L, codec.encode(total)));
    }

    /** @return the reply decoded from its frame */
    @Benchmark
    public Object decodeReply() {
        Reply r = (Reply) protocol.decode(replyFrame, 0, replyFrame.length);
        byte[] p = r.payload();
        return p == null ? total : codec.decode(p, 0, p.length);
    }
}
