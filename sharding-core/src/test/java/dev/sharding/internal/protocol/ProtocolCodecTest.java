package dev.sharding.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.Member;
import dev.sharding.internal.codec.MalformedFrameException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ProtocolCodecTest {

    private static final Member A = new Member(1L, -2L, "node-a");

    private static final Member B = new Member(Long.MAX_VALUE, Long.MIN_VALUE, "nœud-b");

    private final ProtocolCodec codec = new ProtocolCodec(1024 * 1024);

    static Stream<ProtocolMessage> everyMessage() {
        byte[] payload = "payload".getBytes(StandardCharsets.UTF_8);
        List<RegionInfo> regions = List.of(
                new RegionInfo("account", false, true, 100, new int[] {0, 7, 99}, new long[] {1, Long.MAX_VALUE, 42}),
                new RegionInfo("cart", true, false, 10, new int[0]));
        return Stream.of(
                new Register(regions, "store-1"),
                new Register(List.of(), ""),
                new Register(regions, "store-2", new MemberProfile("2.0.0-RC1", List.of("backend", "batch"))),
                new RegisterAck(),
                new GetShardStates(),
                new ShardStates(regions),
                new ShardStates(List.of()),
                new ShardStates(regions, new MemberProfile("1.10", List.of("web"))),
                new GetShardHome("account", 42),
                new ShardHome("account", 0, B),
                new HostShard("account", 99, 7, 0, List.of()),
                new HostShard(
                        "account",
                        98,
                        Long.MAX_VALUE,
                        Long.MAX_VALUE - 1,
                        List.of(
                                new EntityTransfer("a", payload, 3),
                                new EntityTransfer("b", null, 0),
                                new EntityTransfer("c", null, 4, payload),
                                new EntityTransfer("d", payload, 5, new byte[0]))),
                new ShardStarted("account", 99),
                new EntityEnvelope("account", "e-1", 3, 0, null, payload, 0, payload.length),
                new EntityEnvelope("account", "ü-ß-" + "x".repeat(300), 3, Long.MAX_VALUE, A, payload, 2, 3),
                new EntityEnvelope("account", "e-2", 3, 0, null, payload, 0, payload.length, "tell-id"),
                new EntityEnvelope("account", "e-3", 3, 77, A, payload, 1, 2, "ü-" + "k".repeat(255)),
                new Reply(17, payload),
                new Reply(18, null),
                new Failure(19, FailureKind.ENTITY_FAILED, "java.lang.IllegalStateException", "boom"),
                new Failure(20, FailureKind.UNAVAILABLE, "x", null),
                new GetRegionStats(5),
                new BeginHandOff("account", 3, A),
                new BeginHandOffAck("account", 3),
                new HandOff("account", 3, List.of(A, B)),
                new HandOff("account", 4, List.of()),
                new ShardStopped("account", 3, 0, List.of()),
                new ShardStopped("account", 4, 9, List.of(new EntityTransfer("x", new byte[0], 1))),
                new GracefulShutdownRequest(),
                new RegionStopped(),
                new RegionStoppedAck(),
                new AdminRequest(1, null, 0, null),
                new AdminRequest(2, "account", 7, "n2"),
                new AdminReply(2, true, "Handing off shard 7"),
                new AdminReply(3, false, "Unknown node x"),
                new LeasePing(1),
                new LeasePing(Long.MAX_VALUE),
                new LeasePong(7, 8),
                new LeaseGrant(8, 2_000_000_000L),
                new LeaseRefused(9, "not in the view"),
                new StopShard("account", 5, 12),
                new RegisterRefused("other store"),
                new Failure(21, FailureKind.PARTITIONED, "dev.sharding.ClusterPartitionedException", "lost"),
                new RegionStats(
                        5,
                        true,
                        List.of("account/3"),
                        List.of(
                                new RegionStats.TypeStats("account", false, 42, Map.of(1, 10, 2, 0)),
                                new RegionStats.TypeStats("cart", true, 0, Map.of()))),
                new RegionStats(6, false, List.of(), List.of(), new MemberProfile("3", List.of("x"))),
                new RegionStats(
                        7,
                        false,
                        List.of("account/3"),
                        List.of(),
                        MemberProfile.NONE,
                        List.of(
                                new RebalanceReport(1500, 2, Map.of("n1", 2), Map.of("n2", 1, "n3", 1)),
                                new RebalanceReport(60_000, 1, Map.of("n1", 1), Map.of()))));
    }

    @ParameterizedTest
    @MethodSource("everyMessage")
    void roundTripsEveryMessage(ProtocolMessage message) {
        byte[] frame = codec.encode(message);
        assertThat(codec.decode(frame, 0, frame.length)).isEqualTo(message);
        byte[] shifted = new byte[frame.length + 10];
        System.arraycopy(frame, 0, shifted, 5, frame.length);
        assertThat(codec.decode(shifted, 5, frame.length)).isEqualTo(message);
    }

    @Test
    void everyMessageTypeIsCoveredByTheRoundTrip() {
        Set<Class<?>> covered = everyMessage().map(Object::getClass).collect(Collectors.toSet());
        assertThat(covered).containsExactlyInAnyOrderElementsOf(messageRecords(ProtocolMessage.class));
    }

    /** The records of a sealed family, through its sub-families. */
    private static Set<Class<?>> messageRecords(Class<?> family) {
        Set<Class<?>> records = new java.util.HashSet<>();
        for (Class<?> c : family.getPermittedSubclasses()) {
            if (c.isRecord()) {
                records.add(c);
            } else {
                records.addAll(messageRecords(c));
            }
        }
        return records;
    }

    @Test
    void everyMessageBelongsToExactlyOneRecipientFamily() {
        everyMessage()
                .forEach(m -> assertThat(Stream.of(
                                        CoordinatorMessage.class,
                                        RegionMessage.class,
                                        LeaseMessage.class,
                                        NodeMessage.class,
                                        EntityTraffic.class)
                                .filter(f -> f.isInstance(m)))
                        .as("families of %s", m.getClass().getSimpleName())
                        .hasSize(1));
    }

    @Test
    void tagsAreUnique() {
        assertThat(everyMessage()
                        .collect(Collectors.toMap(Object::getClass, ProtocolMessage::tag, (a, b) -> a))
                        .values())
                .doesNotHaveDuplicates();
    }

    @ParameterizedTest
    @MethodSource("everyMessage")
    void everyTruncationIsRejected(ProtocolMessage message) {
        byte[] frame = codec.encode(message);
        for (int len = 0; len < frame.length; len++) {
            int l = len;
            assertThatThrownBy(() -> codec.decode(frame, 0, l))
                    .as("truncated to %d of %d", l, frame.length)
                    .isInstanceOf(MalformedFrameException.class);
        }
    }

    @Test
    void trailingBytesAreRejected() {
        byte[] frame = codec.encode(new GetShardHome("a", 1));
        byte[] longer = Arrays.copyOf(frame, frame.length + 1);
        assertThatThrownBy(() -> codec.decode(longer, 0, longer.length))
                .isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("unexpected bytes");
    }

    @Test
    void wrongMagicVersionOrTagIsRejected() {
        assertThatThrownBy(() -> codec.decode(new byte[] {1, 1, 1}, 0, 3))
                .isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("magic");
        assertThatThrownBy(() -> codec.decode(new byte[] {ProtocolCodec.MAGIC, 9, 1}, 0, 3))
                .isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("version");
        assertThatThrownBy(
                        () -> codec.decode(new byte[] {ProtocolCodec.MAGIC, ProtocolCodec.VERSION, (byte) 200}, 0, 3))
                .isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("tag");
    }

    @Test
    void oversizedPayloadIsRejectedBeforeAllocation() {
        ProtocolCodec small = new ProtocolCodec(16);
        byte[] big = new byte[17];
        byte[] frame = codec.encode(new EntityEnvelope("t", "e", 0, 0, null, big, 0, big.length));
        assertThatThrownBy(() -> small.decode(frame, 0, frame.length))
                .isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("over the limit");
        byte[] reply = codec.encode(new Reply(1, big));
        assertThatThrownBy(() -> small.decode(reply, 0, reply.length)).isInstanceOf(MalformedFrameException.class);
    }

    @Test
    void hugeDeclaredLengthsDoNotAllocate() {
        // magic, version, Register tag, then a region count of 2^28
        byte[] frame = {ProtocolCodec.MAGIC, 1, Register.TAG, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01};
        assertThatThrownBy(() -> codec.decode(frame, 0, frame.length)).isInstanceOf(MalformedFrameException.class);
    }

    @Test
    void randomGarbageNeverEscapesAsAnotherException() {
        Random random = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            byte[] garbage = new byte[random.nextInt(64)];
            random.nextBytes(garbage);
            if (garbage.length > 2 && random.nextBoolean()) {
                garbage[0] = (byte) ProtocolCodec.MAGIC;
                garbage[1] = 1;
                garbage[2] = (byte) (1 + random.nextInt(22));
            }
            try {
                codec.decode(garbage, 0, garbage.length);
            } catch (MalformedFrameException expected) {
                // the only failure allowed
            }
        }
    }
}
