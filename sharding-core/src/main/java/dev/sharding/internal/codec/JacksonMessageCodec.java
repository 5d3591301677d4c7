package dev.sharding.internal.codec;

import dev.sharding.MessageRejectedException;
import dev.sharding.spi.MessageCodec;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.dataformat.smile.SmileMapper;
import tools.jackson.dataformat.smile.SmileWriteFeature;

/**
 * The default codec: a value is its class name followed by a Smile (binary JSON) document of it, written and read by
 * Jackson with no default typing. Only the declared classes (and a few JDK value types) decode: the class name read
 * from the frame is looked up in that table, never loaded.
 */
public final class JacksonMessageCodec implements MessageCodec {

    /** JDK value types every node may send as messages or replies. */
    public static final Set<Class<?>> BUILT_IN_TYPES = Set.of(
            String.class,
            Integer.class,
            Long.class,
            Short.class,
            Byte.class,
            Boolean.class,
            Double.class,
            Float.class,
            Character.class,
            BigDecimal.class,
            BigInteger.class);

    private static final int MAX_TYPE_NAME = 1024;

    /** The declared class names, found by their bytes in a payload, and their readers at the same index. */
    private final KnownStrings typeNames;

    private final ObjectReader[] readers;

    private final ClassValue<@Nullable Encoder> encoders;

    private final int maxSize;

    private final WireWriter.Scratch scratch = new WireWriter.Scratch();

    /**
     * Creates a codec for the given classes.
     *
     * @param declaredTypes the classes that may be encoded and decoded, besides {@link #BUILT_IN_TYPES}
     * @param maxSize the largest encoding, in bytes
     */
    public JacksonMessageCodec(Collection<Class<?>> declaredTypes, int maxSize) {
        // Back-references to names already written save little in one small message but cost a name table per
        // message (a fifth of a sender's allocation in the profile); readers need nothing to follow either way.
        this(mapper().disable(SmileWriteFeature.CHECK_SHARED_NAMES).build(), declaredTypes, maxSize);
    }

    /**
     * The mapper every built-in codec starts from: dates and times come back as they were sent, a {@code
     * ZonedDateTime} with its zone and an {@code OffsetDateTime} with its offset (Jackson's defaults turn both into
     * the same instant in UTC, so that a state or message read back is not {@code equals} to the one written).
     */
    static SmileMapper.Builder mapper() {
        return SmileMapper.builder()
                .disable(DateTimeFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
                .enable(DateTimeFeature.WRITE_DATES_WITH_ZONE_ID);
    }

    /**
     * Creates a codec with a mapper of one's own (which must write a format its readers read).
     *
     * @param mapper the mapper
     * @param declaredTypes the classes that may be encoded and decoded, besides {@link #BUILT_IN_TYPES}
     * @param maxSize the largest encoding, in bytes
     */
    public JacksonMessageCodec(ObjectMapper mapper, Collection<Class<?>> declaredTypes, int maxSize) {
        this.maxSize = maxSize;
        Set<Class<?>> all = new LinkedHashSet<>(BUILT_IN_TYPES);
        all.addAll(declaredTypes);
        Map<Class<?>, Encoder> byClass = new HashMap<>();
        List<String> names = new ArrayList<>();
        List<ObjectReader> readerList = new ArrayList<>();
        for (Class<?> type : all) {
            if (type.isPrimitive() || type.isInterface() || type.isArray()) {
                throw new IllegalArgumentException(
                        "Cannot declare " + type.getName() + " as a message type: declare a concrete class");
            }
            String name = type.getName();
            names.add(name);
            readerList.add(mapper.readerFor(type));
            byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
            byClass.put(type, new Encoder(nameBytes, mapper.writerFor(type)));
        }
        this.typeNames = new KnownStrings(names);
        this.readers = readerList.toArray(ObjectReader[]::new);
        this.encoders = new ClassValue<>() {
            @Override
            protected @Nullable Encoder computeValue(Class<?> type) {
                return byClass.get(type);
            }
        };
    }

    /**
     * Whether a class may be encoded.
     *
     * @param type the class
     * @return whether it was declared
     */
    public boolean isDeclared(Class<?> type) {
        return encoders.get(type) != null;
    }

    @Override
    public byte[] encode(Object value) {
        Encoder encoder = encoders.get(value.getClass());
        if (encoder == null) {
            throw new MessageRejectedException("Type " + value.getClass().getName()
                    + " is not declared: declare it as an @EntityHandler parameter or return type (or a class a sealed"
                    + " one permits), or as an extra message type (sharding.message-types with the Spring Boot"
                    + " starter, ShardingNode.Builder.messageTypes otherwise)");
        }
        WireWriter out = scratch.acquire();
        try {
            out.varInt(encoder.name.length);
            out.write(encoder.name, 0, encoder.name.length);
            try {
                encoder.writer.writeValue(out, value);
            } catch (RuntimeException e) {
                throw new MessageRejectedException(
                        "Cannot encode " + value.getClass().getName() + ": " + e.getMessage());
            }
            if (out.size() > maxSize) {
                throw new MessageRejectedException("Encoded " + value.getClass().getName() + " is " + out.size()
                        + " bytes, over the limit of " + maxSize + " (setting max-payload-size)");
            }
            return out.toByteArray();
        } finally {
            scratch.release(out);
        }
    }

    @Override
    public Object decode(byte[] buffer, int offset, int length) {
        if (length > maxSize) {
            throw new MessageRejectedException("Payload of " + length + " bytes is over the limit of " + maxSize);
        }
        WireReader in;
        int index;
        try {
            in = new WireReader(buffer, offset, length);
            int nameLength = in.blockLength(MAX_TYPE_NAME);
            index = typeNames.indexOf(buffer, in.position(), nameLength);
            if (index < 0) {
                throw new MessageRejectedException("Payload names undeclared type "
                        + new String(buffer, in.position(), nameLength, StandardCharsets.UTF_8) + ": refused");
            }
            in.skip(nameLength);
        } catch (MalformedFrameException e) {
            throw new MessageRejectedException("Malformed payload: " + e.getMessage());
        }
        ObjectReader reader = readers[index];
        String name = typeNames.get(index);
        try {
            Object value = reader.readValue(buffer, in.position(), in.remaining());
            if (value == null) {
                throw new MessageRejectedException("Payload of type " + name + " decodes to null");
            }
            return value;
        } catch (RuntimeException e) {
            if (e instanceof MessageRejectedException m) {
                throw m;
            }
            throw new MessageRejectedException("Cannot decode payload of type " + name + ": " + e.getMessage());
        }
    }

    private record Encoder(byte[] name, ObjectWriter writer) {}
}
