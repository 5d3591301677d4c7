package dev.sharding.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.MessageRejectedException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JacksonMessageCodecTest {

    record Deposit(long amount, String note) {}

    record Balance(String id, long balance, List<String> history) {}

    record Secret(String value) {}

    record Meeting(ZonedDateTime starts, OffsetDateTime booked, Instant at) {}

    private final JacksonMessageCodec codec = new JacksonMessageCodec(List.of(Deposit.class, Balance.class), 4096);

    @Test
    void roundTripsDeclaredAndBuiltInTypes() {
        for (Object value :
                List.of(new Deposit(5, "x"), new Balance("a", -1, List.of("p", "q")), "text", 42L, 7, true, 1.5d)) {
            byte[] bytes = codec.encode(value);
            assertThat(codec.decode(bytes, 0, bytes.length)).isEqualTo(value);
        }
    }

    @Test
    void datesAndTimesComeBackWithTheirZoneAndOffset() {
        JacksonMessageCodec meetings = new JacksonMessageCodec(List.of(Meeting.class), 4096);
        Meeting sent = new Meeting(
                ZonedDateTime.of(2026, 12, 1, 9, 0, 0, 0, ZoneId.of("Europe/Paris")),
                OffsetDateTime.of(2026, 11, 27, 13, 5, 0, 0, ZoneOffset.ofHours(-5)),
                Instant.ofEpochSecond(1_800_000_000L, 123));
        byte[] bytes = meetings.encode(sent);
        assertThat(meetings.decode(bytes, 0, bytes.length)).isEqualTo(sent);
    }

    @Test
    void refusesToEncodeAnUndeclaredType() {
        assertThatThrownBy(() -> codec.encode(new Secret("s")))
                .isInstanceOf(MessageRejectedException.class)
                .hasMessageContaining(Secret.class.getName())
                .hasMessageContaining("not declared");
    }

    @Test
    void refusesToDecodeAnUndeclaredType() {
        JacksonMessageCodec other = new JacksonMessageCodec(List.of(Secret.class), 4096);
        byte[] bytes = other.encode(new Secret("s"));
        assertThatThrownBy(() -> codec.decode(bytes, 0, bytes.length))
                .isInstanceOf(MessageRejectedException.class)
                .hasMessageContaining("undeclared type " + Secret.class.getName());
    }

    @Test
    void neverLoadsAClassNamedOnTheWire() {
        WireWriter out = new WireWriter(64);
        byte[] name = "java.lang.ProcessBuilder".getBytes(StandardCharsets.UTF_8);
        out.varInt(name.length);
        out.write(name, 0, name.length);
        byte[] bytes = out.toByteArray();
        assertThatThrownBy(() -> codec.decode(bytes, 0, bytes.length))
                .isInstanceOf(MessageRejectedException.class)
                .hasMessageContaining("undeclared");
    }

    @Test
    void rejectsOversizedPayloads() {
        Deposit big = new Deposit(1, "x".repeat(5000));
        assertThatThrownBy(() -> codec.encode(big))
                .isInstanceOf(MessageRejectedException.class)
                .hasMessageContaining("over the limit");
        byte[] bytes = new JacksonMessageCodec(List.of(Deposit.class), 1 << 20).encode(big);
        assertThatThrownBy(() -> codec.decode(bytes, 0, bytes.length))
                .isInstanceOf(MessageRejectedException.class)
                .hasMessageContaining("over the limit");
    }

    @Test
    void rejectsTruncatedAndGarbageFrames() {
        byte[] bytes = codec.encode(new Balance("a", 1, List.of("x")));
        for (int len = 0; len < bytes.length; len++) {
            int l = len;
            assertThatThrownBy(() -> codec.decode(bytes, 0, l))
                    .as("truncated to %d", l)
                    .isInstanceOf(MessageRejectedException.class);
        }
        Random random = new Random(7);
        for (int i = 0; i < 5_000; i++) {
            byte[] garbage = new byte[random.nextInt(80)];
            random.nextBytes(garbage);
            if (random.nextBoolean()) {
                System.arraycopy(bytes, 0, garbage, 0, Math.min(garbage.length, bytes.length / 2));
            }
            try {
                codec.decode(garbage, 0, garbage.length);
            } catch (MessageRejectedException expected) {
                // the only failure allowed
            }
        }
    }

    @Test
    void rejectsAValueOfTheWrongShape() {
        JacksonMessageCodec liar = new JacksonMessageCodec(List.of(Secret.class), 4096);
        byte[] secret = liar.encode(new Secret("s"));
        // re-label the Secret document as a Deposit
        WireWriter out = new WireWriter(64);
        byte[] name = Deposit.class.getName().getBytes(StandardCharsets.UTF_8);
        out.varInt(name.length);
        out.write(name, 0, name.length);
        int nameLen = secret[0];
        out.write(secret, 1 + nameLen, secret.length - 1 - nameLen);
        byte[] forged = out.toByteArray();
        Object decoded;
        try {
            decoded = codec.decode(forged, 0, forged.length);
        } catch (MessageRejectedException e) {
            return; // rejected: fine
        }
        // accepted only as a Deposit with defaults, never as anything else
        assertThat(decoded).isInstanceOf(Deposit.class);
    }

    @Test
    void refusesToDeclareInterfacesAndPrimitives() {
        assertThatThrownBy(() -> new JacksonMessageCodec(List.of(Runnable.class), 4096))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("concrete");
    }
}
