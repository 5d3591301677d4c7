package dev.sharding.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CodecCheckTest {

    public enum Colour {
        RED,
        GREEN
    }

    public record Line(String sku, int quantity) {}

    public record Cart(
            String id,
            long total,
            List<Line> lines,
            Map<String, Integer> counts,
            Optional<String> note,
            Colour colour,
            BigDecimal price,
            Instant at,
            byte[] blob,
            Set<Colour> colours) {}

    public record Envelope(Object payload) {}

    /** Not a record, no no-arg constructor, two constructors and no creator: Jackson cannot choose one. */
    public static class Amount {

        private final long value;

        public Amount(long value) {
            this.value = value;
        }

        public Amount(String value) {
            this(Long.parseLong(value));
        }

        public long getValue() {
            return value;
        }
    }

    /** Jackson sees no property: the value is lost on the way. */
    public static class Counter {

        private int value;

        public int value() {
            return value;
        }

        public void increment() {
            value++;
        }
    }

    /** A plain bean: getters and setters, which Jackson reads and writes. */
    public static class Bean {

        private String name = "";

        private int size;

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public int getSize() {
            return size;
        }

        public void setSize(int size) {
            this.size = size;
        }
    }

    /** A record whose constructor refuses the sample values is not checked rather than reported. */
    public record Strict(String code) {
        public Strict {
            if (!code.matches("[A-Z]{3}")) {
                throw new IllegalArgumentException("code");
            }
        }
    }

    private static Map<Class<?>, String> check(Class<?>... types) {
        List<Class<?>> list = List.of(types);
        return CodecCheck.check(new JacksonMessageCodec(list, 1 << 20), list);
    }

    record Slot(java.time.ZonedDateTime starts, java.time.OffsetDateTime booked) {}

    @Test
    void zonedAndOffsetTimesPassWithTheBuiltInCodecAndAreReportedWhenAMapperTurnsThemIntoUtc() {
        assertThat(check(Slot.class)).isEmpty();
        // Jackson's own defaults: read back as the same instant in UTC, not equal to what was written
        JacksonMessageCodec utc = new JacksonMessageCodec(
                tools.jackson.dataformat.smile.SmileMapper.builder().build(), List.of(Slot.class), 1 << 20);
        assertThat(CodecCheck.check(utc, List.of(Slot.class))).containsKey(Slot.class);
    }

    @Test
    void recordsOfValuesCollectionsAndNestedRecordsPass() {
        assertThat(check(Cart.class, Line.class, Bean.class, Strict.class)).isEmpty();
    }

    @Test
    void anObjectFieldIsReportedBecauseItComesBackAsAMap() {
        assertThat(check(Envelope.class))
                .hasEntrySatisfying(
                        Envelope.class,
                        problem -> assertThat(problem)
                                .contains("Envelope.payload was a")
                                .contains("read back a java.util.LinkedHashMap"));
    }

    @Test
    void aClassWithoutCreatorIsReportedAsNotDecodable() {
        assertThat(check(Amount.class))
                .hasEntrySatisfying(
                        Amount.class,
                        problem -> assertThat(problem)
                                .startsWith("it cannot be decoded")
                                .contains("Amount"));
    }

    @Test
    void privateFieldsWithoutAccessorsAreReportedAsLost() {
        assertThat(check(Counter.class)).containsKey(Counter.class);
    }
}
