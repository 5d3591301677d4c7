package dev.sharding.internal.codec;

import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Builds a sample instance of a message or state class, with a value other than the default in every field that
 * the codec should carry, so that a round trip through the codec shows what it loses. Records are built through
 * their canonical constructor; other classes are made without running a constructor and their fields set, as a
 * decoder would have to restore them.
 */
final class SampleValues {

    /** Stands for a value of a field declared as {@code Object}: a codec without type information loses its type. */
    public record Probe(int probe) {}

    /** Thrown when no sample can be built (a constructor refused the sample values): the class is not checked. */
    static final class NoSample extends Exception {

        private static final long serialVersionUID = 1L;

        NoSample(String message) {
            super(message, null, false, false);
        }
    }

    private static final int MAX_DEPTH = 4;

    private final Set<Class<?>> building = new HashSet<>();

    /**
     * A sample instance of a class.
     *
     * @param type the class
     * @return the sample
     * @throws NoSample if none can be built
     */
    Object of(Class<?> type) throws NoSample {
        Object value = value(type, type, 0);
        if (value == null) {
            throw new NoSample("no sample of " + type.getName());
        }
        return value;
    }

    private @Nullable Object value(Class<?> raw, Type generic, int depth) throws NoSample {
        Object simple = simple(raw);
        if (simple != null) {
            return simple;
        }
        if (raw.isEnum()) {
            Object[] constants = raw.getEnumConstants();
            return constants.length == 0 ? null : constants[0];
        }
        if (depth > MAX_DEPTH || building.contains(raw)) {
            return null;
        }
        building.add(raw);
        try {
            return composite(raw, generic, depth);
        } finally {
            building.remove(raw);
        }
    }

    private @Nullable Object composite(Class<?> raw, Type generic, int depth) throws NoSample {
        if (raw == Object.class) {
            return new Probe(7);
        }
        if (raw == Optional.class) {
            Class<?> arg = rawOf(typeArgument(generic, 0));
            Object inner = value(arg, typeArgument(generic, 0), depth + 1);
            return Optional.ofNullable(inner);
        }
        if (raw.isArray()) {
            Class<?> component = raw.getComponentType();
            Type componentGeneric = generic instanceof GenericArrayType g ? g.getGenericComponentType() : component;
            Object element = value(component, componentGeneric, depth + 1);
            Object array = Array.newInstance(component, element == null ? 0 : 1);
            if (element != null) {
                Array.set(array, 0, element);
            }
            return array;
        }
        if (Collection.class.isAssignableFrom(raw)) {
            Collection<Object> c = Set.class.isAssignableFrom(raw) ? new LinkedHashSet<>() : new ArrayList<>();
            Object element = value(rawOf(typeArgument(generic, 0)), typeArgument(generic, 0), depth + 1);
            if (element != null) {
                c.add(element);
            }
            return raw.isInstance(c) ? c : null;
        }
        if (Map.class.isAssignableFrom(raw)) {
            Map<Object, Object> m = new LinkedHashMap<>();
            Object key = value(rawOf(typeArgument(generic, 0)), typeArgument(generic, 0), depth + 1);
            Object element = value(rawOf(typeArgument(generic, 1)), typeArgument(generic, 1), depth + 1);
            if (key != null && element != null) {
                m.put(key, element);
            }
            return raw.isInstance(m) ? m : null;
        }
        if (raw.isSealed() && (raw.isInterface() || Modifier.isAbstract(raw.getModifiers()))) {
            for (Class<?> permitted : raw.getPermittedSubclasses()) {
                Object v = value(permitted, permitted, depth + 1);
                if (v != null) {
                    return v;
                }
            }
            return null;
        }
        if (raw.isInterface()
                || Modifier.isAbstract(raw.getModifiers())
                || raw.isPrimitive()
                || raw.getName().startsWith("java.")
                || raw.getName().startsWith("javax.")) {
            return null;
        }
        return raw.isRecord() ? record(raw, depth) : bean(raw, depth);
    }

    private Object record(Class<?> raw, int depth) throws NoSample {
        RecordComponent[] components = raw.getRecordComponents();
        Class<?>[] types = new Class<?>[components.length];
        Object[] args = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            Object v = value(types[i], components[i].getGenericType(), depth + 1);
            args[i] = v != null || !types[i].isPrimitive() ? v : Array.get(Array.newInstance(types[i], 1), 0);
        }
        try {
            Constructor<?> canonical = raw.getDeclaredConstructor(types);
            canonical.setAccessible(true);
            return canonical.newInstance(args);
        } catch (InvocationTargetException e) {
            throw new NoSample(raw.getName() + " refused sample values: " + e.getCause());
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new NoSample("cannot build " + raw.getName() + ": " + e);
        }
    }

    private Object bean(Class<?> raw, int depth) throws NoSample {
        Object instance = allocate(raw);
        for (Field f : CodecCheck.carriedFields(raw)) {
            Object v = value(f.getType(), f.getGenericType(), depth + 1);
            if (v == null) {
                continue;
            }
            try {
                f.setAccessible(true);
                f.set(instance, v);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new NoSample("cannot set " + raw.getName() + "." + f.getName() + ": " + e);
            }
        }
        return instance;
    }

    private static Object allocate(Class<?> raw) throws NoSample {
        try {
            Constructor<?> noArg = raw.getDeclaredConstructor();
            noArg.setAccessible(true);
            return noArg.newInstance();
        } catch (NoSuchMethodException e) {
            return withoutConstructor(raw);
        } catch (InvocationTargetException e) {
            throw new NoSample(raw.getName() + "'s no-arg constructor failed: " + e.getCause());
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new NoSample("cannot build " + raw.getName() + ": " + e);
        }
    }

    /** Makes an instance without running any of its constructors, as serialization frameworks do. */
    private static Object withoutConstructor(Class<?> raw) throws NoSample {
        try {
            Class<?> factoryClass = Class.forName("sun.reflect.ReflectionFactory");
            Object factory = factoryClass.getMethod("getReflectionFactory").invoke(null);
            Constructor<?> objectConstructor = Object.class.getDeclaredConstructor();
            Constructor<?> c = (Constructor<?>) factoryClass
                    .getMethod("newConstructorForSerialization", Class.class, Constructor.class)
                    .invoke(factory, raw, objectConstructor);
            return c.newInstance();
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            throw new NoSample("cannot make an instance of " + raw.getName() + ": " + e);
        }
    }

    private static @Nullable Object simple(Class<?> raw) {
        if (raw == String.class || raw == CharSequence.class) {
            return "sample";
        }
        if (raw == int.class || raw == Integer.class) {
            return 7;
        }
        if (raw == long.class || raw == Long.class) {
            return 7L;
        }
        if (raw == short.class || raw == Short.class) {
            return (short) 7;
        }
        if (raw == byte.class || raw == Byte.class) {
            return (byte) 7;
        }
        if (raw == double.class || raw == Double.class) {
            return 7.5d;
        }
        if (raw == float.class || raw == Float.class) {
            return 7.5f;
        }
        if (raw == boolean.class || raw == Boolean.class) {
            return true;
        }
        if (raw == char.class || raw == Character.class) {
            return 's';
        }
        if (raw == BigDecimal.class) {
            return new BigDecimal("7.5");
        }
        if (raw == BigInteger.class) {
            return BigInteger.valueOf(7);
        }
        if (raw == UUID.class) {
            return new UUID(7, 7);
        }
        if (raw == Instant.class) {
            return Instant.ofEpochSecond(1_700_000_000L);
        }
        if (raw == Duration.class) {
            return Duration.ofSeconds(7);
        }
        if (raw == LocalDate.class) {
            return LocalDate.of(2020, 2, 2);
        }
        if (raw == LocalTime.class) {
            return LocalTime.of(7, 7);
        }
        if (raw == LocalDateTime.class) {
            return LocalDateTime.of(2020, 2, 2, 7, 7);
        }
        // away from UTC, and a zone with rules: a codec that turns them into UTC is caught at startup
        if (raw == OffsetDateTime.class) {
            return OffsetDateTime.of(2020, 2, 2, 7, 7, 0, 0, ZoneOffset.ofHours(2));
        }
        if (raw == ZonedDateTime.class) {
            return ZonedDateTime.of(2020, 2, 2, 7, 7, 0, 0, ZoneId.of("Europe/Paris"));
        }
        return null;
    }

    private static Type typeArgument(Type generic, int index) {
        if (generic instanceof ParameterizedType p && p.getActualTypeArguments().length > index) {
            return p.getActualTypeArguments()[index];
        }
        return Object.class;
    }

    static Class<?> rawOf(Type type) {
        if (type instanceof Class<?> c) {
            return c;
        }
        if (type instanceof ParameterizedType p) {
            return rawOf(p.getRawType());
        }
        if (type instanceof WildcardType w) {
            return rawOf(w.getUpperBounds()[0]);
        }
        if (type instanceof TypeVariable<?> v) {
            return rawOf(v.getBounds()[0]);
        }
        if (type instanceof GenericArrayType g) {
            return Array.newInstance(rawOf(g.getGenericComponentType()), 0).getClass();
        }
        return Object.class;
    }
}
