package dev.sharding.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.Member;
import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.codec.WireWriter;
import dev.sharding.spi.MessageTracing;
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
                new EntityEnvelope(
                        "account",
                        "e-4",
                        3,
                        78,
                        A,
                        payload,
                        0,
                        payload.length,
                        null,
                        Map.of("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")),
                new EntityEnvelope(
                        "account", "e-5", 3, 0, null, payload, 0, payload.length, "id-5", Map.of("ü", "", "b", "ß")),
                new EntityEnvelope("account", "e-6", 3, 79, B, payload, 0, payload.length, null, fullestHeaders()),
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
                new LeasePong(7, 9, 1_500_000_000L),
                new LeaseGrant(8, 2_000_000_000L),
                new LeaseRefused(9, "not in the view"),
                new StopShard("account", 5, 12),
                new RegisterRefused("other store"),
                new Failure(21, FailureKind.PARTITIONED, "dev.sharding.ClusterPartitionedException", "lost"),
                new Failure(22, FailureKind.STORE_FAILED, "java.sql.SQLTimeoutException", "no answer"),
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
                                new RebalanceReport(1500, 2, 2, Map.of("n1", 2), Map.of("n2", 1, "n3", 1)),
                                new RebalanceReport(60_000, 1, 1, Map.of("n1", 1), Map.of()))),
                new RegionStats(
                        8,
                        false,
                        List.of(),
                        List.of(),
                        MemberProfile.NONE,
                        List.of(),
                        List.of(new RefusedMember(B, "runs entity type account with 7 shards, the cluster 20"))));
    }

    /** As many headers as an envelope may carry, each name and value as long as allowed, some in two-byte letters. */
    static Map<String, String> fullestHeaders() {
        Map<String, String> headers = new java.util.HashMap<>();
        for (int i = 0; i < MessageTracing.MAX_HEADERS; i++) {
            String key = (i % 2 == 0 ? "k" : "é") + String.format("%02d", i);
            headers.put(
                    key + "k".repeat(MessageTracing.MAX_KEY_BYTES - EnvelopeHeaders.utf8Length(key)),
                    i % 2 == 0
                            ? "v".repeat(MessageTracing.MAX_VALUE_BYTES)
                            : "ü".repeat(MessageTracing.MAX_VALUE_BYTES / 2));
        }
        return headers;
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
    void everyFailureKindRoundTripsUnderItsStableCode() {
        for (FailureKind kind : FailureKind.values()) {
            Failure f = new Failure(1, kind, "x", "y");
            byte[] frame = codec.encode(f);
            assertThat(codec.decode(frame, 0, frame.length)).isEqualTo(f);
            assertThat(FailureKind.of(kind.code())).isEqualTo(kind);
        }
        assertThat(Stream.of(FailureKind.values()).map(FailureKind::code)).doesNotHaveDuplicates();
        // codes cross the wire between versions: never renumber one
        assertThat(FailureKind.ENTITY_FAILED.code()).isEqualTo(1);
        assertThat(FailureKind.PARTITIONED.code()).isEqualTo(6);
        assertThat(FailureKind.STORE_FAILED.code()).isEqualTo(7);
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
    void aPongWithANegativeEarlierAnswerIsRejected() {
        WireWriter out = new WireWriter(64);
        out.byte8(ProtocolCodec.MAGIC).byte8(ProtocolCodec.VERSION).byte8(LeasePong.TAG);
        out.int64(1).int64(2).int64(-5);
        byte[] frame = out.toByteArray();
        assertThatThrownBy(() -> codec.decode(frame, 0, frame.length))
                .isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("negative earlier answer");
        assertThatThrownBy(() -> new LeasePong(1, 2, -2)).isInstanceOf(IllegalArgumentException.class);
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

    private EntityEnvelope envelopeWith(Map<String, String> headers) {
        byte[] payload = {1, 2, 3};
        return new EntityEnvelope("t", "e", 0, 5, A, payload, 0, payload.length, null, headers);
    }

    private void assertRejected(byte[] frame, String reason) {
        assertThatThrownBy(() -> codec.decode(frame, 0, frame.length))
                .isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining(reason);
    }

    @Test
    void headersBlocksOverTheLimitsAreRejected() {
        Map<String, String> seventeen = new java.util.HashMap<>();
        for (int i = 0; i <= MessageTracing.MAX_HEADERS; i++) {
            seventeen.put("h" + i, "v");
        }
        assertRejected(codec.encode(envelopeWith(seventeen)), "17 headers");
        assertRejected(codec.encode(envelopeWith(Map.of())), "0 headers");
        assertRejected(
                codec.encode(envelopeWith(Map.of("k".repeat(MessageTracing.MAX_KEY_BYTES + 1), "v"))),
                "over the limit of 64");
        assertRejected(codec.encode(envelopeWith(Map.of("é".repeat(33), "v"))), "66 bytes is over the limit of 64");
        assertRejected(
                codec.encode(envelopeWith(Map.of("k", "v".repeat(MessageTracing.MAX_VALUE_BYTES + 1)))),
                "over the limit of 1024");
        assertRejected(codec.encode(envelopeWith(Map.of("", "v"))), "has no name");

        byte[] twice = codec.encode(envelopeWith(new java.util.TreeMap<>(Map.of("a", "1", "b", "1"))));
        int b = indexOf(twice, new byte[] {1, 'b', 1, '1'});
        twice[b + 1] = 'a';
        assertRejected(twice, "[a] appears twice");
    }

    @Test
    void anUnknownEnvelopeFlagIsRejected() {
        byte[] frame = codec.encode(new EntityEnvelope("t", "e", 0, 0, null, new byte[0], 0, 0));
        int flags = 3 + 2 + 2 + 1 + 8; // magic, version, tag; type, id, shard, correlation id
        assertThat(frame[flags]).isZero();
        frame[flags] = 8;
        assertRejected(frame, "Bad envelope flags 8");
    }

    @Test
    void mutatedEnvelopesWithHeadersEitherDecodeWithinTheLimitsOrAreMalformed() {
        byte[] payload = "payload".getBytes(StandardCharsets.UTF_8);
        byte[] original =
                codec.encode(new EntityEnvelope("t", "e", 0, 9, A, payload, 0, payload.length, "m", fullestHeaders()));
        byte[] small = codec.encode(new EntityEnvelope(
                "t", "e", 0, 9, A, payload, 0, payload.length, null, Map.of("traceparent", "00-abc-def-01")));
        Random random = new Random(13);
        int decoded = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] frame = (i % 2 == 0 ? small : original).clone();
            for (int k = 0; k <= random.nextInt(3); k++) {
                frame[3 + random.nextInt(frame.length - 3)] = (byte) random.nextInt(256);
            }
            try {
                if (codec.decode(frame, 0, frame.length) instanceof EntityEnvelope e && e.headers() != null) {
                    decoded++;
                    assertThat(e.headers()).hasSizeBetween(1, MessageTracing.MAX_HEADERS);
                    // read from at most that many bytes (a mutated byte may no longer be UTF-8, and reads as U+FFFD)
                    e.headers().forEach((key, value) -> {
                        assertThat(key.length()).isBetween(1, MessageTracing.MAX_KEY_BYTES);
                        assertThat(value.length()).isLessThanOrEqualTo(MessageTracing.MAX_VALUE_BYTES);
                    });
                }
            } catch (MalformedFrameException expected) {
                // the only failure allowed
            }
        }
        assertThat(decoded)
                .as("some mutations hit only letters and still decode")
                .isPositive();
    }

    @Test
    void aSenderLeavesOutTheHeadersOverTheLimits() {
        Map<String, String> given = new java.util.LinkedHashMap<>();
        given.put("traceparent", "00-1-2-01");
        given.put("", "no name");
        given.put("k".repeat(MessageTracing.MAX_KEY_BYTES + 1), "long name");
        given.put("é".repeat(33), "long name in two-byte letters");
        given.put("long", "v".repeat(MessageTracing.MAX_VALUE_BYTES + 1));
        for (int i = 0; i < 20; i++) {
            given.put("h" + i, String.valueOf(i));
        }
        Map<String, String> kept = EnvelopeHeaders.sendable(given);
        assertThat(kept).hasSize(MessageTracing.MAX_HEADERS).containsEntry("traceparent", "00-1-2-01");
        assertThat(kept.keySet()).doesNotContain("", "long").allMatch(k -> k.length() <= 4 || k.equals("traceparent"));
        assertThat(kept).containsEntry("h14", "14").doesNotContainKey("h15");
        byte[] frame = codec.encode(envelopeWith(kept));
        assertThat(codec.decode(frame, 0, frame.length)).isEqualTo(envelopeWith(kept));

        assertThat(EnvelopeHeaders.sendable(Map.of())).isNull();
        assertThat(EnvelopeHeaders.sendable(Map.of("", "x"))).isNull();
        assertThat(EnvelopeHeaders.utf8Length("a\u00e9\u20ac\ud83d\ude00")).isEqualTo(1 + 2 + 3 + 4);
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }
}
