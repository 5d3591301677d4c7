package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.AskTimeoutException;
import dev.sharding.BufferFullException;
import dev.sharding.EntityType;
import dev.sharding.EntityTypeSettings;
import dev.sharding.Member;
import dev.sharding.MessageRejectedException;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.UnhandledMessageException;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.internal.protocol.EntityEnvelope;
import dev.sharding.internal.protocol.Failure;
import dev.sharding.internal.protocol.FailureKind;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.protocol.Reply;
import dev.sharding.internal.transport.Outbox;
import dev.sharding.test.Counter;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Bad input gets a clear error, changes nothing, and the node keeps serving: garbage and forged frames from another
 * member, undeclared types, oversized payloads, invalid ids, unknown entity types, full buffers.
 */
class BadInputClusterTest {

    record Undeclared(String text) {}

    private final Map<String, JChannel> channels = new ConcurrentHashMap<>();

    private final TestCluster cluster = new TestCluster(settings -> ShardingNode.builder(settings)
            .entityType(Counter.type())
            .channelCustomizer(ch -> channels.put(settings.nodeName(), ch)));

    private JChannel raw;

    @AfterEach
    void stop() {
        if (raw != null) {
            raw.close();
        }
        cluster.close();
    }

    @Test
    void forgedAndGarbageFramesAreRejectedAndTheNodeKeepsServing() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardingNode target = nodes.get(1);
        String id = "victim";
        int shards = 20;
        Counter.Total before = nodes.get(0)
                .region(Counter.class)
                .ask(id, new Counter.Add(5), Counter.Total.class)
                .get(10, TimeUnit.SECONDS);
        ShardingNode home = before.node().equals(target.nodeName()) ? target : nodes.get(0);

        // a plain JGroups member of the same cluster that sends whatever it likes
        List<ProtocolMessage> received = new CopyOnWriteArrayList<>();
        ProtocolCodec protocol = new ProtocolCodec(1 << 20);
        raw = new JChannel(TestCluster.STACK).name("raw");
        raw.setReceiver(new Receiver() {
            @Override
            public void receive(Message msg) {
                byte[] buf = msg.getArray();
                if (msg.getLength() > 0 && buf[msg.getOffset()] == Outbox.BATCH_MAGIC) {
                    Outbox.unpack(
                            buf, msg.getOffset(), msg.getLength(), (b, o, n) -> received.add(protocol.decode(b, o, n)));
                } else {
                    received.add(protocol.decode(buf, msg.getOffset(), msg.getLength()));
                }
            }
        });
        raw.connect(channels.get(target.nodeName()).getClusterName());
        UUID rawAddress = (UUID) raw.getAddress();
        Member rawMember = new Member(rawAddress.getMostSignificantBits(), rawAddress.getLeastSignificantBits(), "raw");
        Address homeAddress = channels.get(home.nodeName()).getAddress();

        JacksonMessageCodec declared = new JacksonMessageCodec(List.of(Counter.Add.class), 1 << 20);
        byte[] add = declared.encode(new Counter.Add(1000));
        byte[] undeclared = new JacksonMessageCodec(List.of(Undeclared.class), 1 << 20).encode(new Undeclared("x"));
        int shard = EntityType.shardOf(id, shards);

        send(homeAddress, new byte[] {1, 2, 3});
        send(homeAddress, new byte[0]);
        byte[] truncated = protocol.encode(new EntityEnvelope("counter", id, shard, 1, rawMember, add, 0, add.length));
        send(homeAddress, java.util.Arrays.copyOf(truncated, truncated.length - 3));
        send(
                homeAddress,
                protocol.encode(new EntityEnvelope("nosuchtype", id, shard, 11, rawMember, add, 0, add.length)));
        send(
                homeAddress,
                protocol.encode(
                        new EntityEnvelope("counter", id, shard, 12, rawMember, undeclared, 0, undeclared.length)));
        send(
                homeAddress,
                protocol.encode(
                        new EntityEnvelope("counter", id, (shard + 1) % shards, 13, rawMember, add, 0, add.length)));
        send(
                homeAddress,
                protocol.encode(new EntityEnvelope("counter", id, shard, 14, rawMember, new byte[] {9, 9, 9}, 0, 3)));
        send(homeAddress, protocol.encode(new Reply(424242, add))); // a reply nobody waits for
        // batches: one whose second length runs past its end, one holding garbage and a nested batch next to a
        // rejected envelope, and one with a zero length
        byte[] rejected =
                protocol.encode(new EntityEnvelope("nosuchtype", id, shard, 15, rawMember, add, 0, add.length));
        send(homeAddress, batch(rejected, new byte[] {Outbox.BATCH_MAGIC, 1, 2}, new byte[] {7, 7}));
        byte[] overrun = batch(rejected);
        overrun = java.util.Arrays.copyOf(overrun, overrun.length + 2);
        overrun[overrun.length - 2] = 50;
        send(homeAddress, overrun);
        send(homeAddress, new byte[] {Outbox.BATCH_MAGIC, 0});
        // headers blocks over the limits make the whole frame malformed: dropped unanswered, the message not applied
        Map<String, String> seventeen = new java.util.HashMap<>();
        for (int i = 0; i <= dev.sharding.spi.MessageTracing.MAX_HEADERS; i++) {
            seventeen.put("h" + i, "v");
        }
        for (Map<String, String> headers : List.of(
                seventeen,
                Map.of("k".repeat(dev.sharding.spi.MessageTracing.MAX_KEY_BYTES + 1), "v"),
                Map.of("traceparent", "v".repeat(dev.sharding.spi.MessageTracing.MAX_VALUE_BYTES + 1)),
                Map.<String, String>of())) {
            send(
                    homeAddress,
                    protocol.encode(new EntityEnvelope(
                            "counter", id, shard, 16, rawMember, add, 0, add.length, null, headers)));
        }
        // headers within the limits, at a node that does not trace: served as without them
        byte[] addNothing = declared.encode(new Counter.Add(0));
        send(
                homeAddress,
                protocol.encode(new EntityEnvelope(
                        "counter",
                        id,
                        shard,
                        17,
                        rawMember,
                        addNothing,
                        0,
                        addNothing.length,
                        null,
                        Map.of("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))));

        Awaitility.await("the rejections sent back to the forging member")
                .atMost(Duration.ofSeconds(10))
                .until(() -> received.stream().filter(m -> m instanceof Failure).count() >= 6);
        Map<Long, Failure> failures = new ConcurrentHashMap<>();
        received.stream()
                .filter(m -> m instanceof Failure)
                .map(m -> (Failure) m)
                .forEach(f -> failures.put(f.correlationId(), f));
        assertThat(failures).containsOnlyKeys(11L, 12L, 13L, 14L, 15L);
        assertThat(received.stream().filter(m -> m instanceof Failure f && f.correlationId() == 15))
                .hasSize(2);
        assertThat(failures.values()).allSatisfy(f -> assertThat(f.kind()).isEqualTo(FailureKind.REJECTED));
        assertThat(failures.get(11L).message()).contains("Unknown entity type nosuchtype");
        assertThat(failures.get(12L).message()).contains("undeclared type").contains(Undeclared.class.getName());
        assertThat(failures.get(13L).message()).contains("belongs to shard " + shard);
        assertThat(failures.get(14L).message()).contains("Malformed payload");
        Awaitility.await("the reply to the envelope with headers")
                .atMost(Duration.ofSeconds(10))
                .until(() -> received.stream().anyMatch(m -> m instanceof Reply r && r.correlationId() == 17));

        // nothing changed, and both nodes still serve
        for (ShardingNode via : nodes) {
            Counter.Total t = via.region(Counter.class)
                    .ask(id, new Counter.Get(), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS);
            assertThat(t.total()).isEqualTo(5);
            assertThat(via.region(Counter.class)
                            .ask("other", new Counter.Add(1), Counter.Total.class)
                            .get(10, TimeUnit.SECONDS)
                            .total())
                    .isPositive();
        }
    }

    private static byte[] batch(byte[]... frames) {
        int size = 1;
        for (byte[] f : frames) {
            size += Outbox.varintSize(f.length) + f.length;
        }
        byte[] out = new byte[size];
        out[0] = Outbox.BATCH_MAGIC;
        int pos = 1;
        for (byte[] f : frames) {
            pos = Outbox.writeVarint(out, pos, f.length);
            System.arraycopy(f, 0, out, pos, f.length);
            pos += f.length;
        }
        return out;
    }

    private void send(Address to, byte[] frame) throws Exception {
        raw.send(new BytesMessage(to, frame));
    }

    @Test
    void invalidCallsFailClearlyAndChangeNothing() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardRegion<Counter> region = nodes.get(0).region(Counter.class);
        assertThatThrownBy(() -> region.tell("", new Counter.Add(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Invalid entity id");
        assertThatThrownBy(() -> region.tell("x".repeat(ShardingSettings.MAX_ENTITY_ID_LENGTH + 1), new Counter.Add(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> region.tell("a", "not a counter message"))
                .isInstanceOf(UnhandledMessageException.class)
                .hasMessageContaining("java.lang.String");
        assertThatThrownBy(() -> region.ask("a", new Undeclared("x"), Counter.Total.class)
                        .get(5, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(UnhandledMessageException.class);
        assertThatThrownBy(
                        () -> region.ask("a", new Counter.Get(), String.class).get(10, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(MessageRejectedException.class)
                .hasMessageContaining("not the expected");
        assertThat(region.ask("a", new Counter.Get(), Counter.Total.class)
                        .get(10, TimeUnit.SECONDS)
                        .total())
                .isZero();
    }

    @Test
    void oversizedMessagesToRemoteEntitiesAreRefusedBeforeSending() throws Exception {
        List<ShardingNode> nodes = List.of(
                cluster.startNode(s -> s.withMaxPayloadSize(1024)), cluster.startNode(s -> s.withMaxPayloadSize(1024)));
        String remoteId = null;
        for (int i = 0; remoteId == null; i++) {
            Counter.Total t = nodes.get(0)
                    .region(Counter.class)
                    .ask("o-" + i, new Counter.Get(), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS);
            if (!t.node().equals(nodes.get(0).nodeName())) {
                remoteId = t.id();
            }
        }
        String big = "x".repeat(2000);
        String target = remoteId;
        assertThatThrownBy(() -> nodes.get(0)
                        .region(Counter.class)
                        .ask(target, new Counter.Fail(big), Counter.Total.class)
                        .get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(MessageRejectedException.class)
                .hasMessageContaining("over the limit of 1024");
        assertThatThrownBy(() -> nodes.get(0).region(Counter.class).tell(target, new Counter.Fail(big)))
                .isInstanceOf(MessageRejectedException.class);
        assertThat(nodes.get(0)
                        .region(Counter.class)
                        .ask(target, new Counter.Add(1), Counter.Total.class)
                        .get(10, TimeUnit.SECONDS)
                        .count())
                .isEqualTo(1);
    }

    @Test
    void aFullBufferFailsAsksAndTellsAtOnceAndAsksTimeOut() throws Exception {
        ShardingNode proxy = cluster.startNode(s -> s.withBufferSize(10)
                .withEntity(
                        "counter", EntityTypeSettings.builder().proxyOnly(true).build()));
        ShardRegion<Counter> region = proxy.region(Counter.class);
        var waiting = new java.util.ArrayList<java.util.concurrent.CompletableFuture<Counter.Total>>();
        for (int i = 0; i < 10; i++) {
            waiting.add(region.ask("b-" + i, new Counter.Add(1), Counter.Total.class, Duration.ofMillis(500)));
        }
        assertThatThrownBy(() -> region.ask("b-x", new Counter.Add(1), Counter.Total.class)
                        .get(5, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(BufferFullException.class)
                .hasMessageContaining("buffer-size");
        assertThatThrownBy(() -> region.tell("b-y", new Counter.Add(1))).isInstanceOf(BufferFullException.class);
        for (var f : waiting) {
            assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOf(AskTimeoutException.class)
                    .hasMessageContaining("before its shard's home was known");
        }
        // asks that timed out give their buffer space back
        Awaitility.await("buffer space of timed-out asks freed")
                .atMost(Duration.ofSeconds(10))
                .until(() -> {
                    try {
                        region.tell("b-z", new Counter.Add(1));
                        return true;
                    } catch (BufferFullException stillFull) {
                        return false;
                    }
                });
    }
}
