package dev.sharding.bench.jmh;

import dev.sharding.Member;
import dev.sharding.bench.Total;
import dev.sharding.internal.protocol.EntityEnvelope;
import dev.sharding.internal.protocol.GetShardHome;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.protocol.Register;
import dev.sharding.internal.protocol.RegisterAck;
import dev.sharding.internal.protocol.Reply;
import dev.sharding.internal.protocol.ShardHome;
import dev.sharding.internal.transport.Transport;
import dev.sharding.spi.MessageCodec;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A transport without a network for one node. With a {@code remote} member it plays that member as the coordinator
 * and host of every shard: it acknowledges registration, answers every shard-home request with itself, counts the
 * tells it receives (and drops them), and answers each ask at once, on the sending thread, with a {@link Total}
 * reply frame. Without one, the node is alone and sends nothing.
 */
public final class FakeTransport implements Transport {

    private final Member self;

    private final @Nullable Member remote;

    private final ProtocolCodec protocol;

    private final MessageCodec codec;

    private final AtomicLong envelopes = new AtomicLong();

    private volatile @Nullable Listener listener;

    private volatile boolean answerAsks = true;

    /**
     * Creates the transport.
     *
     * @param self this node
     * @param remote the other node it plays, or {@code null} for a node alone
     * @param protocol the protocol codec
     * @param codec the message codec, for the replies it makes
     */
    public FakeTransport(Member self, @Nullable Member remote, ProtocolCodec protocol, MessageCodec codec) {
        this.self = self;
        this.remote = remote;
        this.protocol = protocol;
        this.codec = codec;
    }

    @Override
    public void start(Listener l) {
        this.listener = l;
        Member r = remote;
        l.onView(r == null ? List.of(self) : List.of(r, self));
    }

    @Override
    public Member self() {
        return self;
    }

    /**
     * Entity envelopes sent so far.
     *
     * @return the count
     */
    public long envelopes() {
        return envelopes.get();
    }

    /**
     * Whether envelopes are decoded so that asks get their reply; off, every envelope is only counted.
     *
     * @param value whether to answer asks
     */
    public void answerAsks(boolean value) {
        this.answerAsks = value;
    }

    @Override
    public boolean send(Member to, byte[] frame, boolean outOfBand) {
        Listener l = listener;
        Member r = remote;
        if (frame.length > 2 && frame[2] == EntityEnvelope.TAG) {
            envelopes.incrementAndGet();
            if (!answerAsks) {
                return true; // a tell: counted and dropped without decoding, as the network would take it
            }
        }
        if (l == null || r == null || !to.equals(r)) {
            return true;
        }
        ProtocolMessage m = protocol.decode(frame, 0, frame.length);
        if (m instanceof Register) {
            deliver(l, r, protocol.encode(new RegisterAck()));
        } else if (m instanceof GetShardHome g) {
            deliver(l, r, protocol.encode(new ShardHome(g.typeName(), g.shardId(), r)));
        } else if (m instanceof EntityEnvelope e && e.replyTo() != null) {
            byte[] payload = codec.encode(new Total(e.entityId(), 1, 1));
            deliver(l, r, protocol.encode(new Reply(e.correlationId(), payload)));
        }
        return true;
    }

    private static void deliver(Listener l, Member from, byte[] frame) {
        l.onFrame(from, frame, 0, frame.length);
    }

    @Override
    public void close() {
        listener = null;
    }
}
