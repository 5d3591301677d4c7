package dev.sharding.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.StoredEvent;
import dev.sharding.spi.EventUpcaster;
import dev.sharding.spi.NewEvent;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** How events are named, versioned, encoded without their class name, and upcast when read. */
class EventCodecTest {

    sealed interface Event permits Opened, Renamed, Moved {}

    /** Stored under a name of its own, at version 3: version 1 had "amount", version 2 renamed it "cents". */
    @StoredEvent(name = "opened", version = 3)
    record Opened(long cents, String currency) implements Event {}

    /** A class renamed from "OldName": its events keep that name. */
    @StoredEvent(name = "OldName")
    record Renamed(String value) implements Event {}

    record Moved(String to) implements Event {}

    record NotAnEvent(String x) {}

    /** Version 1 of "opened" to 2: amount (units) becomes cents. */
    static final EventUpcaster ONE_TO_TWO = new EventUpcaster() {
        @Override
        public String eventName() {
            return "opened";
        }

        @Override
        public int fromVersion() {
            return 1;
        }

        @Override
        public Map<String, Object> upcast(Map<String, Object> fields) {
            Object amount = fields.remove("amount");
            fields.put("cents", ((Number) amount).longValue() * 100);
            return fields;
        }
    };

    /** Version 2 of "opened" to 3: a currency, EUR for old events. */
    static final EventUpcaster TWO_TO_THREE = upcaster("opened", 2, f -> {
        f.put("currency", "EUR");
        return f;
    });

    private static EventUpcaster upcaster(
            String name, int from, java.util.function.UnaryOperator<Map<String, Object>> change) {
        return new EventUpcaster() {
            @Override
            public String eventName() {
                return name;
            }

            @Override
            public int fromVersion() {
                return from;
            }

            @Override
            public Map<String, Object> upcast(Map<String, Object> fields) {
                return change.apply(fields);
            }
        };
    }

    private final EventCodec codec = new EventCodec("account", Event.class, List.of(ONE_TO_TWO, TWO_TO_THREE), 65536);

    @Test
    void eachPermittedClassIsStoredUnderItsNameAndVersionAndComesBack() {
        assertThat(codec.eventClasses()).containsExactlyInAnyOrder(Opened.class, Renamed.class, Moved.class);
        NewEvent opened = codec.encode(new Opened(500, "USD"), Set.of("t"));
        assertThat(opened.eventType()).isEqualTo("opened");
        assertThat(opened.eventVersion()).isEqualTo(3);
        assertThat(opened.tags()).containsExactly("t");
        assertThat(new String(opened.payload(), java.nio.charset.StandardCharsets.ISO_8859_1))
                .as("the payload names no class, so that a class can be renamed or moved")
                .doesNotContain("Opened")
                .doesNotContain("EventCodecTest");
        assertThat(codec.decode("opened", 3, opened.payload())).isEqualTo(new Opened(500, "USD"));
        NewEvent renamed = codec.encode(new Renamed("x"), Set.of());
        assertThat(renamed.eventType()).isEqualTo("OldName");
        assertThat(codec.encode(new Moved("b"), Set.of()).eventType()).isEqualTo("Moved");
        assertThat(codec.encode(new Moved("b"), Set.of()).eventVersion()).isEqualTo(1);
    }

    record Booked(java.time.ZonedDateTime starts) {}

    @Test
    void aZonedTimeComesBackWithItsZone() {
        EventCodec booked = new EventCodec("room", Booked.class, List.of(), 65536);
        Booked event =
                new Booked(java.time.ZonedDateTime.of(2026, 12, 1, 9, 0, 0, 0, java.time.ZoneId.of("Europe/Paris")));
        NewEvent stored = booked.encode(event, Set.of());
        assertThat(booked.decode(stored.eventType(), stored.eventVersion(), stored.payload()))
                .isEqualTo(event);
    }

    @Test
    void anOldVersionGoesThroughEveryUpcasterAfterIt() {
        EventCodec v1 = new EventCodec("account", OpenedV1.class, List.of(), 65536);
        byte[] stored = v1.encode(new OpenedV1(7), Set.of()).payload();
        assertThat(codec.decode("opened", 1, stored)).isEqualTo(new Opened(700, "EUR"));
        EventCodec v2 = new EventCodec("account", OpenedV2.class, List.of(), 65536);
        byte[] stored2 = v2.encode(new OpenedV2(900), Set.of()).payload();
        assertThat(codec.decode("opened", 2, stored2)).isEqualTo(new Opened(900, "EUR"));
    }

    @StoredEvent(name = "opened")
    record OpenedV1(long amount) {}

    @StoredEvent(name = "opened", version = 2)
    record OpenedV2(long cents) {}

    @Test
    void whatCannotBeReadSaysWhyAndWhatToDo() {
        byte[] payload = codec.encode(new Moved("b"), Set.of()).payload();
        assertThatThrownBy(() -> codec.decode("Gone", 1, payload))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'Gone'")
                .hasMessageContaining("@StoredEvent(name = \"Gone\")");
        assertThatThrownBy(() -> codec.decode("Moved", 2, payload)).hasMessageContaining("newer release");
        EventCodec noUpcasters = new EventCodec("account", Event.class, List.of(), 65536);
        assertThatThrownBy(() -> noUpcasters.decode("opened", 1, payload))
                .hasMessageContaining("no EventUpcaster reads version 1");
        assertThatThrownBy(() -> codec.decode("Moved", 1, new byte[] {1, 2, 3}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot be read as");
        assertThatThrownBy(() -> codec.encode(new NotAnEvent("x"), Set.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not an event of entity type account");
        assertThatThrownBy(
                        () -> new EventCodec("account", Event.class, List.of(), 4).encode(new Moved("far"), Set.of()))
                .hasMessageContaining("sharding.max-payload-size");
    }

    sealed interface Clash permits A, B {}

    @StoredEvent(name = "same")
    record A(int x) implements Clash {}

    @StoredEvent(name = "same")
    record B(int y) implements Clash {}

    @Test
    void badDeclarationsFailWhenTheCodecIsMade() {
        assertThatThrownBy(() -> new EventCodec("t", Clash.class, List.of(), 1024))
                .hasMessageContaining("both stored as 'same'");
        assertThatThrownBy(() -> new EventCodec("t", Runnable.class, List.of(), 1024))
                .hasMessageContaining("stands for no class");
        assertThatThrownBy(() -> new EventCodec("t", Event.class, List.of(upcaster("nosuch", 1, f -> f)), 1024))
                .hasMessageContaining("'nosuch'");
        assertThatThrownBy(() -> new EventCodec("t", Event.class, List.of(upcaster("opened", 3, f -> f)), 1024))
                .hasMessageContaining("versions 1 to 2");
        assertThatThrownBy(() -> new EventCodec("t", Event.class, List.of(ONE_TO_TWO, ONE_TO_TWO), 1024))
                .hasMessageContaining("both read version 1");
    }
}
