package dev.sharding.internal.codec;

import dev.sharding.StoredEvent;
import dev.sharding.spi.EventUpcaster;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.NewEvent;
import dev.sharding.spi.PersistedEvent;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;

/**
 * How the events of one event-sourced entity type are stored: each event class under a name that outlives renames of
 * the class and with the version of its fields ({@link StoredEvent}), its payload a Smile document of its fields alone
 * (no class name, unlike messages), so that a class can be renamed or moved. An event stored at an older version is
 * read as a map of its fields, turned into the current version's fields by the type's {@link EventUpcaster}s one
 * version at a time, and only then made into its class. Thread-safe.
 */
public final class EventCodec {

    /** An event class as stored. */
    private record Kind(Class<?> type, String name, int version, ObjectWriter writer, ObjectReader reader) {}

    private static final ObjectMapper MAPPER = JacksonMessageCodec.mapper().build();

    private final String typeName;

    private final Map<Class<?>, Kind> byClass = new HashMap<>();

    private final Map<String, Kind> byName = new HashMap<>();

    /** Upcasters by event name and the version they read. */
    private final Map<String, Map<Integer, EventUpcaster>> upcasters = new HashMap<>();

    private final int maxSize;

    /**
     * Makes the codec of an entity type's events.
     *
     * @param typeName the entity type, for messages
     * @param eventType the event class, or a sealed interface or abstract class standing for its permitted classes
     * @param eventUpcasters the type's upcasters
     * @param maxSize the largest encoded event, in bytes
     * @throws IllegalArgumentException when the event type stands for no class, two classes share a stored name, a
     *     version is below 1, or an upcaster names an unknown event or a version it cannot read
     */
    public EventCodec(String typeName, Class<?> eventType, List<EventUpcaster> eventUpcasters, int maxSize) {
        this.typeName = typeName;
        this.maxSize = maxSize;
        Set<Class<?>> classes = ConcreteTypes.of(eventType);
        if (classes.isEmpty()) {
            throw new IllegalArgumentException("The event type " + eventType.getName() + " of entity type " + typeName
                    + " stands for no class: give a class, or a sealed interface whose permitted classes are the"
                    + " events");
        }
        for (Class<?> c : classes) {
            StoredEvent stored = c.getAnnotation(StoredEvent.class);
            String name = storedName(c);
            int version = stored == null ? 1 : stored.version();
            if (version < 1) {
                throw new IllegalArgumentException(
                        "@StoredEvent(version = " + version + ") on " + c.getName() + ": versions start at 1");
            }
            new NewEvent(name, version, new byte[0], Set.of()); // checks the name as the journal will
            Kind kind = new Kind(c, name, version, MAPPER.writerFor(c), MAPPER.readerFor(c));
            Kind before = byName.putIfAbsent(name, kind);
            if (before != null) {
                throw new IllegalArgumentException(
                        "Event classes " + before.type().getName() + " and " + c.getName()
                                + " of entity type " + typeName + " are both stored as '" + name
                                + "': give one another name with @StoredEvent(name = ...)");
            }
            byClass.put(c, kind);
        }
        for (EventUpcaster u : eventUpcasters) {
            Kind kind = byName.get(u.eventName());
            if (kind == null) {
                throw new IllegalArgumentException("Upcaster " + u.getClass().getName() + " reads event '"
                        + u.eventName() + "', which entity type " + typeName + " does not store; its events are "
                        + byName.keySet());
            }
            if (u.fromVersion() < 1 || u.fromVersion() >= kind.version()) {
                throw new IllegalArgumentException("Upcaster " + u.getClass().getName() + " reads version "
                        + u.fromVersion() + " of '" + u.eventName() + "', whose current version is " + kind.version()
                        + ": it may read versions 1 to " + (kind.version() - 1));
            }
            EventUpcaster other = upcasters
                    .computeIfAbsent(u.eventName(), k -> new HashMap<>())
                    .putIfAbsent(u.fromVersion(), u);
            if (other != null) {
                throw new IllegalArgumentException("Upcasters "
                        + other.getClass().getName() + " and "
                        + u.getClass().getName() + " both read version " + u.fromVersion() + " of '" + u.eventName()
                        + "'");
            }
        }
    }

    /**
     * The name an event class is stored under: its {@link StoredEvent#name()}, or its simple name.
     *
     * @param eventClass the class
     * @return the name
     */
    public static String storedName(Class<?> eventClass) {
        StoredEvent stored = eventClass.getAnnotation(StoredEvent.class);
        return stored == null || stored.name().isBlank() ? eventClass.getSimpleName() : stored.name();
    }

    /**
     * The classes of the events.
     *
     * @return the classes
     */
    public Set<Class<?>> eventClasses() {
        return Set.copyOf(byClass.keySet());
    }

    /**
     * Whether a value is one of the type's events.
     *
     * @param event the value
     * @return true for an instance of a declared event class
     */
    public boolean accepts(Object event) {
        return byClass.containsKey(event.getClass());
    }

    /**
     * Encodes an event for the journal.
     *
     * @param event the event
     * @param tags its tags
     * @return the event as appended
     * @throws IllegalArgumentException when the event's class is not declared, it does not encode, or it is too large
     */
    public NewEvent encode(Object event, Set<String> tags) {
        Kind kind = byClass.get(event.getClass());
        if (kind == null) {
            throw new IllegalArgumentException("A " + event.getClass().getName() + " is not an event of entity type "
                    + typeName + "; its events are "
                    + byClass.keySet().stream().map(Class::getName).sorted().toList());
        }
        byte[] payload;
        try {
            payload = kind.writer().writeValueAsBytes(event);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "The event " + kind.name() + " (" + event.getClass().getName() + ") cannot be encoded: "
                            + e.getMessage(),
                    e);
        }
        if (payload.length > maxSize) {
            throw new IllegalArgumentException(
                    "The event " + kind.name() + " of entity type " + typeName + " encodes to " + payload.length
                            + " bytes, more than " + maxSize + " (sharding.max-payload-size)");
        }
        return new NewEvent(kind.name(), kind.version(), payload, tags);
    }

    /**
     * Decodes a stored event, upcasting it first when it was stored at an older version.
     *
     * @param event the stored event
     * @return the event
     * @throws IllegalStateException when its name is unknown, its version newer than the class's, an upcaster is
     *     missing, or it does not decode
     */
    public Object decode(PersistedEvent event) {
        return decode(event.eventType(), event.eventVersion(), event.payload());
    }

    /**
     * Decodes a stored event ({@link #decode(PersistedEvent)}).
     *
     * @param name the name it is stored under
     * @param version the version it was stored at
     * @param payload its fields
     * @return the event
     */
    public Object decode(String name, int version, byte[] payload) {
        Kind kind = byName.get(name);
        if (kind == null) {
            throw new IllegalStateException("A stored event of entity type " + typeName + " is named '" + name
                    + "', which no event class is stored as now (its events are " + byName.keySet()
                    + "): keep the old name with @StoredEvent(name = \"" + name + "\") on the class that replaced it");
        }
        try {
            if (version == kind.version()) {
                return kind.reader().readValue(payload);
            }
            if (version > kind.version()) {
                throw new IllegalStateException("A stored event '" + name + "' is at version " + version
                        + ", newer than its class " + kind.type().getName() + " (version " + kind.version()
                        + "): it was written by a newer release of the application");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> fields = MAPPER.readValue(payload, LinkedHashMap.class);
            for (int v = version; v < kind.version(); v++) {
                EventUpcaster u = upcasterOf(name, v);
                if (u == null) {
                    throw new IllegalStateException("A stored event '" + name + "' is at version " + version
                            + " and its class " + kind.type().getName() + " at version " + kind.version()
                            + ", but no EventUpcaster reads version " + v);
                }
                fields = u.upcast(fields);
            }
            return MAPPER.convertValue(fields, kind.type());
        } catch (IllegalStateException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "A stored event '" + name + "' (version " + version + ") of entity type " + typeName
                            + " cannot be read as " + kind.type().getName() + ": " + e.getMessage(),
                    e);
        }
    }

    /**
     * This codec as a {@link MessageCodec} of the current versions, for {@link CodecCheck}: an event is its stored
     * name, a zero byte, and its fields.
     *
     * @return the codec
     */
    public MessageCodec asMessageCodec() {
        return new MessageCodec() {
            @Override
            public byte[] encode(Object value) {
                NewEvent e = EventCodec.this.encode(value, Set.of());
                byte[] name = e.eventType().getBytes(StandardCharsets.UTF_8);
                byte[] out = new byte[name.length + 1 + e.payload().length];
                System.arraycopy(name, 0, out, 0, name.length);
                System.arraycopy(e.payload(), 0, out, name.length + 1, e.payload().length);
                return out;
            }

            @Override
            public Object decode(byte[] buffer, int offset, int length) {
                int zero = offset;
                while (buffer[zero] != 0) {
                    zero++;
                }
                String name = new String(buffer, offset, zero - offset, StandardCharsets.UTF_8);
                Kind kind = Objects.requireNonNull(byName.get(name), name);
                return EventCodec.this.decode(
                        name, kind.version(), Arrays.copyOfRange(buffer, zero + 1, offset + length));
            }
        };
    }

    private @Nullable EventUpcaster upcasterOf(String name, int version) {
        Map<Integer, EventUpcaster> byVersion = upcasters.get(name);
        return byVersion == null ? null : byVersion.get(version);
    }
}
