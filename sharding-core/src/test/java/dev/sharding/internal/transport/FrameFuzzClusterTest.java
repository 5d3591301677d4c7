package dev.sharding.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityType;
import dev.sharding.ShardingNode;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.internal.protocol.EntityEnvelope;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.test.Counter;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Random and mutated frames at a node, with the secret off (from a member: garbage of every shape, and envelopes
 * whose flags and headers block are mutated) and on (from a
 * non-member: garbage, frames that claim to be sealed, and real sealed traffic captured on the wire, replayed as it
 * was and with bytes, counters or salts changed). The node keeps serving, the membership does not change, and no
 * frame reaches an entity: the victim's total is exactly what the legitimate asks added.
 */
class FrameFuzzClusterTest {

    private static final int ROUNDS = 3000;

    private final Map<String, JChannel> channels = new ConcurrentHashMap<>();

    private final List<Message> captured = new CopyOnWriteArrayList<>();

    private final TestCluster cluster = new TestCluster(settings -> ShardingNode.builder(settings)
            .entityType(Counter.type())
            .channelCustomizer(ch -> {
                channels.put(settings.nodeName(), ch);
                if (settings.jgroups().secured()) {
                    tap(ch);
                }
            }));

    private JChannel raw;

    @AfterEach
    void stop() {
        if (raw != null) {
            raw.close();
        }
        cluster.close();
    }

    @Test
    void randomFramesFromAMemberReachNoEntityAndTheNodeKeepsServing() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        Victim victim = victim(nodes);
        raw = new JChannel(TestCluster.STACK).name("fuzzer");
        raw.connect(channels.get(victim.home.nodeName()).getClusterName());
        Awaitility.await("fuzzer in the view")
                .atMost(Duration.ofSeconds(20))
                .until(() -> victim.home.members().size() == 3);
        Random random = new Random(7);
        for (int i = 0; i < ROUNDS; i++) {
            byte[] frame = new byte[random.nextInt(i % 10 == 0 ? 4000 : 64)];
            random.nextBytes(frame);
            if (frame.length > 2 && i % 4 != 0) { // past the magic and version, into every message's decoder
                frame[0] = (byte) ProtocolCodec.MAGIC;
                frame[1] = (byte) ProtocolCodec.VERSION;
                frame[2] = (byte) random.nextInt(40);
            } else if (frame.length > 0 && i % 8 == 0) {
                frame[0] = Outbox.BATCH_MAGIC;
            }
            raw.send(new BytesMessage(victim.homeAddress, frame));
        }
        // a real envelope with a headers block (a tell that changes nothing), mutated before its payload: each copy is
        // refused as malformed, or read with headers within their limits
        byte[] get = new JacksonMessageCodec(List.of(Counter.Get.class), 1 << 20).encode(new Counter.Get());
        byte[] traced = new ProtocolCodec(1 << 20)
                .encode(new EntityEnvelope(
                        "counter",
                        victim.id,
                        EntityType.shardOf(victim.id, 20),
                        0,
                        null,
                        get,
                        0,
                        get.length,
                        null,
                        Map.of(
                                "traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                                "tracestate", "vendor=1")));
        for (int i = 0; i < ROUNDS; i++) {
            byte[] frame = traced.clone();
            for (int k = 0; k <= random.nextInt(3); k++) {
                frame[3 + random.nextInt(frame.length - get.length - 4)] = (byte) random.nextInt(256);
            }
            if (i % 5 == 0) {
                frame = java.util.Arrays.copyOf(frame, 3 + random.nextInt(frame.length - 3));
            }
            raw.send(new BytesMessage(victim.homeAddress, frame));
        }
        raw.close();
        raw = null;
        victim.assertUntouchedAndServing(nodes, 2);
    }

    @Test
    void randomForgedAndReplayedFramesFromANonMemberReachNoEntity() throws Exception {
        List<ShardingNode> nodes =
                cluster.startNodes(2, ClusterSecretClusterTest.secret(ClusterSecretClusterTest.SECRET));
        Victim victim = victim(nodes);
        ClusterGuard guard =
                channels.get(victim.home.nodeName()).getProtocolStack().findProtocol(ClusterGuard.class);
        List<Message> sealed = captured.stream()
                .filter(m -> victim.homeAddress.equals(m.getDest()))
                .toList();
        assertThat(sealed)
                .as("sealed messages captured on their way to the home node")
                .isNotEmpty();

        raw = new JChannel(TestCluster.STACK).name("fuzzer");
        ((GMS) raw.getProtocolStack().findProtocol(GMS.class)).setMaxJoinAttempts(1);
        raw.connect(channels.get(victim.home.nodeName()).getClusterName());
        long refusedBefore = guard.refusedCount();
        long replayedBefore = guard.replayedCount();
        Random random = new Random(11);
        int sent = 0;
        for (Message m : sealed) { // replayed as they were
            raw.send(copy(m, victim.homeAddress, m.getArray().clone(), header(m)));
            sent++;
        }
        for (int i = 0; i < ROUNDS; i++) {
            Message original = sealed.get(random.nextInt(sealed.size()));
            GuardHeader h = header(original);
            byte[] body = original.getArray().clone();
            GuardHeader forged = h;
            switch (i % 5) {
                case 0 -> { // garbage with no header
                    body = new byte[random.nextInt(200)];
                    random.nextBytes(body);
                    forged = null;
                }
                case 1 -> { // garbage that claims to be sealed
                    body = new byte[random.nextInt(200)];
                    random.nextBytes(body);
                    byte[] salt = new byte[GuardHeader.SALT_LENGTH];
                    random.nextBytes(salt);
                    forged = new GuardHeader(GuardHeader.SEALED, salt, 1 + random.nextInt(1_000_000));
                }
                case 2 -> { // a real sealed message with bytes flipped
                    for (int k = 0; k <= random.nextInt(3); k++) {
                        body[random.nextInt(body.length)] ^= (byte) (1 + random.nextInt(255));
                    }
                }
                case 3 -> // a real sealed message under a fresh counter
                    forged = new GuardHeader(GuardHeader.SEALED, h.salt(), h.counter() + 100_000 + i);
                default -> { // a real sealed message cut short
                    body = java.util.Arrays.copyOf(body, random.nextInt(body.length));
                }
            }
            raw.send(copy(original, victim.homeAddress, body, forged));
            sent++;
        }
        int expected = sent;
        Awaitility.await("the guard refused all " + expected + " frames")
                .atMost(Duration.ofSeconds(30))
                .until(() -> guard.refusedCount() >= refusedBefore + expected);
        assertThat(guard.replayedCount() - replayedBefore)
                .as("verbatim copies dropped as replays")
                .isGreaterThanOrEqualTo(sealed.size());
        raw.close();
        raw = null;
        victim.assertUntouchedAndServing(nodes, 2);
    }

    private static GuardHeader header(Message m) {
        return m.getHeader(ClusterGuard.MAGIC_ID);
    }

    private static Message copy(Message original, Address to, byte[] body, GuardHeader header) {
        Message m = new BytesMessage(to, body).setFlag(original.getFlags(), false);
        if (header != null) {
            m.putHeader(ClusterGuard.MAGIC_ID, header);
        }
        return m;
    }

    /** Copies every sealed unicast leaving the node, as an eavesdropper on the network would. */
    private void tap(JChannel ch) {
        try {
            ch.getProtocolStack()
                    .insertProtocol(
                            new Protocol() {
                                @Override
                                public Object down(Message msg) {
                                    if (msg.getDest() != null
                                            && msg.getHeader(ClusterGuard.MAGIC_ID) != null
                                            && captured.size() < 500) {
                                        captured.add(msg.copy(true, true));
                                    }
                                    return down_prot.down(msg);
                                }
                            },
                            ProtocolStack.Position.BELOW,
                            ClusterGuard.class);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** An entity on the second node, reached from the first, so that its messages cross the wire. */
    private Victim victim(List<ShardingNode> nodes) throws Exception {
        for (int i = 0; ; i++) {
            Counter.Total t = nodes.get(0)
                    .region(Counter.class)
                    .ask("victim-" + i, new Counter.Add(5), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS);
            if (t.node().equals(nodes.get(1).nodeName())) {
                for (int k = 0; k < 20; k++) {
                    nodes.get(0)
                            .region(Counter.class)
                            .ask("victim-" + i, new Counter.Add(1), Counter.Total.class)
                            .get(10, TimeUnit.SECONDS);
                }
                return new Victim(
                        "victim-" + i,
                        nodes.get(1),
                        channels.get(nodes.get(1).nodeName()).getAddress());
            }
        }
    }

    private record Victim(String id, ShardingNode home, Address homeAddress) {

        void assertUntouchedAndServing(List<ShardingNode> nodes, int members) throws Exception {
            for (ShardingNode n : nodes) {
                Counter.Total t = n.region(Counter.class)
                        .ask(id, new Counter.Add(0), Counter.Total.class)
                        .get(10, TimeUnit.SECONDS);
                assertThat(t.total())
                        .as("total of %s asked at %s", id, n.nodeName())
                        .isEqualTo(25);
                assertThat(t.node()).isEqualTo(home.nodeName());
            }
            Awaitility.await("membership back to the nodes")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> nodes.stream().allMatch(n -> n.members().size() == members));
            for (int i = 0; i < 10; i++) {
                assertThat(nodes.get(i % 2)
                                .region(Counter.class)
                                .ask("after-" + i, new Counter.Add(1), Counter.Total.class)
                                .get(10, TimeUnit.SECONDS)
                                .total())
                        .isEqualTo(1);
            }
        }
    }
}
