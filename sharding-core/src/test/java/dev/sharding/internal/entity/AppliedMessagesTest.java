package dev.sharding.internal.entity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.internal.codec.MalformedFrameException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class AppliedMessagesTest {

    private static final long HOUR = 3_600_000;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aWindowRoundTripsThroughItsStoredForm() {
        AppliedMessages w = AppliedMessages.NONE
                .plus("a", 1_000, bytes("reply-a"), 10, HOUR)
                .plus("b", 2_000, null, 10, HOUR)
                .plus("ü-" + "x".repeat(300), 3_000, new byte[0], 10, HOUR);
        AppliedMessages read = AppliedMessages.decode(w.encode());
        assertThat(read.size()).isEqualTo(3);
        assertThat(read.find("a", 5_000, HOUR).reply()).isEqualTo(bytes("reply-a"));
        assertThat(read.find("a", 5_000, HOUR).appliedAtMillis()).isEqualTo(1_000);
        assertThat(read.find("b", 5_000, HOUR).reply()).isNull();
        assertThat(read.find("ü-" + "x".repeat(300), 5_000, HOUR).reply()).isEmpty();
        assertThat(read.find("c", 5_000, HOUR)).isNull();
    }

    @Test
    void fingerprintsAreStoredAndTellAnotherMessageUnderTheSameId() {
        long deposit5 = AppliedMessages.fingerprint(bytes("deposit 5"));
        long deposit7 = AppliedMessages.fingerprint(bytes("deposit 7"));
        assertThat(deposit5).isNotEqualTo(deposit7).isNotEqualTo(AppliedMessages.NO_FINGERPRINT);
        assertThat(AppliedMessages.fingerprint(new byte[0])).isNotEqualTo(AppliedMessages.NO_FINGERPRINT);
        AppliedMessages read = AppliedMessages.decode(
                AppliedMessages.NONE.plus("k", 1_000, deposit5, null, 10, HOUR).encode());
        AppliedMessages.Entry entry = read.find("k", 2_000, HOUR);
        assertThat(entry.fingerprint()).isEqualTo(deposit5);
        assertThat(entry.matches(deposit5)).isTrue();
        assertThat(entry.matches(deposit7)).isFalse();
        assertThat(entry.matches(AppliedMessages.NO_FINGERPRINT)).isTrue();
    }

    @Test
    void windowsStoredBeforeFingerprintsMatchAnyMessage() {
        // format 1: one entry "k" applied at 1000 with the reply "r", as stored before fingerprints were kept
        byte[] stored = new dev.sharding.internal.codec.WireWriter(32)
                .byte8(1)
                .varInt(1)
                .string("k")
                .int64(1_000)
                .bool(true)
                .bytes(bytes("r"))
                .toByteArray();
        AppliedMessages.Entry entry = AppliedMessages.decode(stored).find("k", 2_000, HOUR);
        assertThat(entry.reply()).isEqualTo(bytes("r"));
        assertThat(entry.matches(AppliedMessages.fingerprint(bytes("anything"))))
                .isTrue();
    }

    @Test
    void theEmptyWindowIsStoredAsNothing() {
        assertThat(AppliedMessages.NONE.encode()).isNull();
        assertThat(AppliedMessages.decode(null).size()).isZero();
        assertThat(AppliedMessages.decode(new byte[0]).size()).isZero();
    }

    @Test
    void theOldestIdsLeaveBeyondTheCount() {
        AppliedMessages w = AppliedMessages.NONE;
        for (int i = 1; i <= 5; i++) {
            w = w.plus("k" + i, i, null, 3, HOUR);
        }
        assertThat(w.size()).isEqualTo(3);
        assertThat(w.find("k1", 10, HOUR)).isNull();
        assertThat(w.find("k2", 10, HOUR)).isNull();
        assertThat(w.find("k3", 10, HOUR)).isNotNull();
        assertThat(w.find("k5", 10, HOUR)).isNotNull();
    }

    @Test
    void idsOlderThanTheAgeAreNotFoundAndAreDroppedAtTheNextAddition() {
        AppliedMessages w = AppliedMessages.NONE.plus("old", 0, null, 10, 1_000);
        assertThat(w.find("old", 1_000, 1_000)).isNotNull();
        assertThat(w.find("old", 1_001, 1_000)).as("past the age").isNull();
        w = w.plus("new", 5_000, null, 10, 1_000);
        assertThat(w.size()).isEqualTo(1);
        assertThat(w.find("new", 5_000, 1_000)).isNotNull();
    }

    @Test
    void anIdAddedAgainMovesToTheNewEnd() {
        AppliedMessages w = AppliedMessages.NONE
                .plus("a", 1, bytes("1"), 2, HOUR)
                .plus("b", 2, bytes("2"), 2, HOUR)
                .plus("a", 3, bytes("3"), 2, HOUR)
                .plus("c", 4, bytes("4"), 2, HOUR);
        assertThat(w.find("a", 5, HOUR).reply()).isEqualTo(bytes("3"));
        assertThat(w.find("b", 5, HOUR)).isNull();
    }

    @Test
    void malformedStoredFormsAreRefused() {
        byte[] good = AppliedMessages.NONE.plus("a", 1, bytes("r"), 10, HOUR).encode();
        assertThatThrownBy(() -> AppliedMessages.decode(new byte[] {9, 0}))
                .isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("Unknown format");
        assertThatThrownBy(() -> AppliedMessages.decode(Arrays.copyOf(good, good.length - 1)))
                .isInstanceOf(MalformedFrameException.class);
        byte[] trailing = Arrays.copyOf(good, good.length + 1);
        assertThatThrownBy(() -> AppliedMessages.decode(trailing)).isInstanceOf(MalformedFrameException.class);
        assertThatThrownBy(() -> AppliedMessages.decode(new byte[] {1, 100}))
                .isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("Bad count");
    }
}
