package dev.sharding.internal.codec;

import dev.sharding.spi.MessageCodec;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks at startup that a codec carries each declared message, reply and state class across the network intact,
 * so that a class which would fail only once an entity lives on another node (no way to construct it, a field
 * declared as {@code Object}, a private field without accessor) fails on the first node at once. Each class gets a
 * sample instance with a non-default value in every field ({@link SampleValues}); the sample is encoded, decoded and
 * compared field by field. A class of which no sample can be built is not checked.
 */
public final class CodecCheck {

    private static final Logger log = LoggerFactory.getLogger(CodecCheck.class);

    private static final String JSON_IGNORE = "com.fasterxml.jackson.annotation.JsonIgnore";

    private CodecCheck() {}

    /**
     * Round-trips a sample of every class through the codec.
     *
     * @param codec the codec
     * @param types the classes to check
     * @return a description of what goes wrong, per class that fails; empty when all pass
     */
    public static Map<Class<?>, String> check(MessageCodec codec, Collection<Class<?>> types) {
        Map<Class<?>, String> problems = new LinkedHashMap<>();
        for (Class<?> type : types) {
            if (JacksonMessageCodec.BUILT_IN_TYPES.contains(type)) {
                continue;
            }
            String problem = problem(codec, type);
            if (problem != null) {
                problems.put(type, problem);
            }
        }
        return problems;
    }

    private static @Nullable String problem(MessageCodec codec, Class<?> type) {
        Object sample;
        try {
            sample = new SampleValues().of(type);
        } catch (SampleValues.NoSample e) {
            log.debug("Not checking {} against the codec: {}", type.getName(), e.getMessage());
            return null;
        }
        byte[] bytes;
        try {
            bytes = codec.encode(sample);
        } catch (RuntimeException e) {
            return "it cannot be encoded: " + e.getMessage();
        }
        Object back;
        try {
            back = codec.decode(bytes, 0, bytes.length);
        } catch (RuntimeException e) {
            return "it cannot be decoded: " + e.getMessage();
        }
        String difference = difference(type.getSimpleName(), sample, back);
        return difference == null ? null : "it does not come back as it was sent: " + difference;
    }

    /**
     * The fields a codec must carry for an instance to come back the same: every instance field of the class and
     * its superclasses, less transient ones and those marked {@code @JsonIgnore}.
     */
    static List<Field> carriedFields(Class<?> type) {
        List<Field> fields = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                int modifiers = f.getModifiers();
                if (Modifier.isStatic(modifiers) || Modifier.isTransient(modifiers) || f.isSynthetic() || ignored(f)) {
                    continue;
                }
                fields.add(f);
            }
        }
        return fields;
    }

    private static boolean ignored(Field f) {
        for (var a : f.getAnnotations()) {
            if (a.annotationType().getName().equals(JSON_IGNORE)) {
                return true;
            }
        }
        return false;
    }

    private static @Nullable String difference(String path, @Nullable Object sent, @Nullable Object received) {
        if (sent == null || received == null) {
            return sent == received ? null : path + " was " + describe(sent) + ", read back " + describe(received);
        }
        if (sent instanceof Collection<?> a && received instanceof Collection<?> b) {
            return sequence(path, a.iterator(), a.size(), b.iterator(), b.size());
        }
        if (sent instanceof Map<?, ?> a && received instanceof Map<?, ?> b) {
            return sequence(
                    path, a.entrySet().iterator(), a.size(), b.entrySet().iterator(), b.size());
        }
        if (sent instanceof Map.Entry<?, ?> a && received instanceof Map.Entry<?, ?> b) {
            String d = difference(path + "[key]", a.getKey(), b.getKey());
            return d != null ? d : difference(path + "[" + a.getKey() + "]", a.getValue(), b.getValue());
        }
        if (sent.getClass() != received.getClass()) {
            return path + " was a " + sent.getClass().getName() + ", read back a "
                    + received.getClass().getName();
        }
        if (sent instanceof Optional<?> a) {
            return difference(path, a.orElse(null), ((Optional<?>) received).orElse(null));
        }
        if (sent.getClass().isArray()) {
            int n = Array.getLength(sent);
            if (n != Array.getLength(received)) {
                return path + " had " + n + " elements, read back " + Array.getLength(received);
            }
            for (int i = 0; i < n; i++) {
                String d = difference(path + "[" + i + "]", Array.get(sent, i), Array.get(received, i));
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (sent instanceof BigDecimal a) {
            return a.compareTo((BigDecimal) received) == 0 ? null : path + " was " + a + ", read back " + received;
        }
        if (isValue(sent.getClass())) {
            return sent.equals(received) ? null : path + " was " + describe(sent) + ", read back " + describe(received);
        }
        for (Field f : carriedFields(sent.getClass())) {
            try {
                f.setAccessible(true);
                String d = difference(path + "." + f.getName(), f.get(sent), f.get(received));
                if (d != null) {
                    return d;
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null; // fields that cannot be read are not compared
            }
        }
        return null;
    }

    private static @Nullable String sequence(String path, Iterator<?> a, int sizeA, Iterator<?> b, int sizeB) {
        if (sizeA != sizeB) {
            return path + " had " + sizeA + " elements, read back " + sizeB;
        }
        for (int i = 0; a.hasNext(); i++) {
            String d = difference(path + "[" + i + "]", a.next(), b.next());
            if (d != null) {
                return d;
            }
        }
        return null;
    }

    private static boolean isValue(Class<?> c) {
        return c.isPrimitive() || c.isEnum() || c.getName().startsWith("java.");
    }

    private static String describe(@Nullable Object value) {
        if (value == null) {
            return "null";
        }
        return value instanceof SampleValues.Probe
                ? "a " + SampleValues.Probe.class.getSimpleName() + " record"
                : value instanceof String s ? '"' + s + '"' : String.valueOf(value);
    }
}
