package dev.sharding.internal.codec;

import dev.sharding.MessageRejectedException;
import dev.sharding.spi.MessageCodec;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.dataformat.smile.SmileMapper;
import tools.jackson.dataformat.smile.SmileWriteFeature;

/**
 * The default codec: a value is its class name followed by a Smile (binary JSON) document of it, written and read by
 * Jackson with no default typing. Only the declared classes (and a few JDK value types) decode: the class name read
 * from the frame is looked up in that table, never loaded.
 */
public final class JacksonMessageCodec implements MessageCodec {

    /** JDK value types every node may send as messages or replies. */
    public static final Set<Class<?>> BUILT_IN_TYPES = Set.of(String.class, Integer.class, Long.class, Short.class,
            Byte.class, Boolean.class, Double.class, Float.class, Character.class, BigDecimal.class,
            BigInteger.class);

    private static final int MAX_TYPE_NAME = 1024;

    private final Map<String, ObjectReader> readers = new HashMap<>();

    private final ClassValue<@Nullable Encoder> encoders;

    private final int maxSize;

    /**
     * Creates a codec for the given classes.
     *
     * @param declaredTypes the classes that may be encoded and decoded, besides {@link #BUILT_IN_TYPES}
     * @param maxSize the largest encoding, in bytes
     */
    public JacksonMessageCodec(Collection<Class<?>> declaredTypes, int maxSize) {
        // Back-references to names already written save little in one small message but cost a name table per
        // message (a fifth of a sender's allocation in the profile); readers need nothing to follow either way.
        this(SmileMapper.builder().disable(SmileWriteFeature.CHECK_SHARED_NAMES).build(), declaredTypes, maxSize);
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
        for (Class<?> type : all) {
            if (type.isPrimitive() || type.isInterface() || type.isArray()) {
                throw new IllegalArgumentException("Cannot declare " + type.getName()
                        + " as a message type: declare a concrete class");
            }
            String name = type.getName();
            readers.put(name, mapper.readerFor(type));
            byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
            byClass.put(type, new Encoder(nameBytes, mapper.writerFor(type)));
        }
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
                    + " is not declared: declare it as an @EntityHandler parameter or return type, or register it");
        }
        WireWriter out = new WireWriter(encoder.name.length + 64);
        out.varInt(encoder.name.length);
        out.write(encoder.name, 0, encoder.name.length);
        try {
            encoder.writer.writeValue(out, value);
        } catch (RuntimeException e) {
            throw new MessageRejectedException("Cannot encode " + value.getClass().getName() + ": " + e.getMessage());
        }
        if (out.size() > maxSize) {
            throw new MessageRejectedException("Encoded " + value.getClass().getName() + " is " + out.size()
                    + " bytes, over the limit of " + maxSize + " (setting max-payload-size)");
        }
        return out.toByteArray();
    }

    @Override
    public Object decode(byte[] buffer, int offset, int length) {
        if (length > maxSize) {
            throw new MessageRejectedException("Payload of " + length + " bytes is over the limit of " + maxSize);
        }
        String name;
        WireReader in;
        try {
            in = new WireReader(buffer, offset, length);
            int nameLength = in.blockLength(MAX_TYPE_NAME);
            name = new String(buffer, in.position(), nameLength, StandardCharsets.UTF_8);
            in.skip(nameLength);
        } catch (MalformedFrameException e) {
            throw new MessageRejectedException("Malformed payload: " + e.getMessage());
        }
        ObjectReader reader = readers.get(name);
        if (reader == null) {
            throw new MessageRejectedException("Payload names undeclared type " + name + ": refused");
        }
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

    private record Encoder(byte[] name, ObjectWriter writer) {
    }
}
