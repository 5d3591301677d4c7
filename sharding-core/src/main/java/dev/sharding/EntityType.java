package dev.sharding;

import dev.sharding.spi.EntityFactory;
import dev.sharding.spi.ShardIdFunction;
import java.beans.Introspector;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One kind of sharded entity as a node runs it: its name, class, number of shards, how instances are made and which
 * message types it may receive besides its handlers' parameter and return types.
 *
 * @param <T> the entity class
 */
public final class EntityType<T> {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,200}");

    private final String name;

    private final Class<T> entityClass;

    private final int numberOfShards;

    private final EntityFactory<T> factory;

    private final Set<Class<?>> messageTypes;

    private final @org.jspecify.annotations.Nullable Class<?> stateType;

    private final ShardIdFunction shardIdFunction;

    private final @org.jspecify.annotations.Nullable Class<?> eventType;

    private final java.util.List<dev.sharding.spi.EventUpcaster> upcasters;

    private EntityType(
            String name,
            Class<T> entityClass,
            int numberOfShards,
            EntityFactory<T> factory,
            Set<Class<?>> messageTypes,
            @org.jspecify.annotations.Nullable Class<?> stateType,
            ShardIdFunction shardIdFunction,
            @org.jspecify.annotations.Nullable Class<?> eventType,
            java.util.List<dev.sharding.spi.EventUpcaster> upcasters) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "Invalid entity type name '" + name + "': 1 to 200 characters of [A-Za-z0-9._-]");
        }
        if (numberOfShards < 0) {
            throw new IllegalArgumentException(
                    "Number of shards of " + name + " must be positive, or 0 for the default");
        }
        this.name = name;
        this.entityClass = entityClass;
        this.numberOfShards = numberOfShards;
        this.factory = Objects.requireNonNull(factory, "factory");
        this.messageTypes = Set.copyOf(messageTypes);
        this.stateType = stateType;
        this.shardIdFunction = Objects.requireNonNull(shardIdFunction, "shardIdFunction");
        this.eventType = eventType;
        this.upcasters = java.util.List.copyOf(upcasters);
    }

    /**
     * The type of an entity class, named and sized by its {@link ShardedEntity} annotation when it has one, with the
     * annotation's shard id function made with its no-argument constructor.
     *
     * @param entityClass the class
     * @param factory makes its instances
     * @param <T> the class
     * @return the type
     * @throws IllegalArgumentException if the annotation's shard id function cannot be made
     */
    public static <T> EntityType<T> of(Class<T> entityClass, EntityFactory<T> factory) {
        ShardedEntity annotation = entityClass.getAnnotation(ShardedEntity.class);
        ShardIdFunction shardIds = annotation == null
                ? ShardIdFunction.HashCode.INSTANCE
                : instantiate(annotation.shardIdFunction(), entityClass);
        return of(entityClass, factory, shardIds);
    }

    /**
     * The type of an entity class, named and sized by its {@link ShardedEntity} annotation when it has one, with a
     * shard id function made elsewhere (for example a Spring bean of the annotation's class).
     *
     * @param entityClass the class
     * @param factory makes its instances
     * @param shardIds how its ids map to shards
     * @param <T> the class
     * @return the type
     */
    public static <T> EntityType<T> of(Class<T> entityClass, EntityFactory<T> factory, ShardIdFunction shardIds) {
        ShardedEntity annotation = entityClass.getAnnotation(ShardedEntity.class);
        String name = annotation == null || annotation.type().isEmpty() ? defaultName(entityClass) : annotation.type();
        int shards = annotation == null ? 0 : annotation.numberOfShards();
        return new EntityType<>(
                name, entityClass, shards, factory, Set.of(), null, shardIds, null, java.util.List.of());
    }

    private static ShardIdFunction instantiate(Class<? extends ShardIdFunction> type, Class<?> entityClass) {
        if (type == ShardIdFunction.HashCode.class) {
            return ShardIdFunction.HashCode.INSTANCE;
        }
        try {
            java.lang.reflect.Constructor<? extends ShardIdFunction> constructor = type.getDeclaredConstructor();
            constructor.setAccessible(true);
            return constructor.newInstance();
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalArgumentException(
                    "Cannot make the shard id function " + type.getName() + " of " + entityClass.getName()
                            + ": it needs a no-argument constructor (or, in a Spring application, a bean of that"
                            + " class): " + e,
                    e);
        }
    }

    /**
     * Checks that a class can be an entity: it has {@code @EntityHandler} methods, each takes exactly one parameter (the
     * message), and no two handle the same type. A node checks this when it starts; call it to fail earlier.
     *
     * @param entityClass the class
     * @throws IllegalArgumentException naming the first problem
     */
    public static void checkHandlers(Class<?> entityClass) {
        dev.sharding.internal.entity.EntityHandlers.of(entityClass);
    }

    /**
     * The name a class gets when its annotation names none: its simple name, decapitalised.
     *
     * @param entityClass the class
     * @return the name
     */
    public static String defaultName(Class<?> entityClass) {
        return Introspector.decapitalize(entityClass.getSimpleName());
    }

    /**
     * Copy with another name.
     *
     * @param value the name
     * @return the copy
     */
    public EntityType<T> withName(String value) {
        return new EntityType<>(
                value,
                entityClass,
                numberOfShards,
                factory,
                messageTypes,
                stateType,
                shardIdFunction,
                eventType,
                upcasters);
    }

    /**
     * Copy with another number of shards.
     *
     * @param value the number, or 0 for the node's default
     * @return the copy
     */
    public EntityType<T> withNumberOfShards(int value) {
        return new EntityType<>(
                name, entityClass, value, factory, messageTypes, stateType, shardIdFunction, eventType, upcasters);
    }

    /**
     * Copy that may also receive and reply with these types.
     *
     * @param types the classes
     * @return the copy
     */
    public EntityType<T> withMessageTypes(Class<?>... types) {
        Set<Class<?>> all = new LinkedHashSet<>(messageTypes);
        all.addAll(Set.of(types));
        return new EntityType<>(
                name, entityClass, numberOfShards, factory, all, stateType, shardIdFunction, eventType, upcasters);
    }

    /**
     * Copy whose entities keep a durable {@link EntityState} of this class: each entity's stored state is read
     * before it is created, and written through after every message that changed it.
     *
     * @param type the state class (a concrete class the codec can encode)
     * @return the copy
     */
    public EntityType<T> withState(Class<?> type) {
        return new EntityType<>(
                name, entityClass, numberOfShards, factory, messageTypes, type, shardIdFunction, eventType, upcasters);
    }

    /**
     * Copy whose entities are event-sourced ({@link EventSourcedState}): with a state declared by
     * {@link #withState(Class)}, each entity's state is the fold of its events, recovered from the store's journal
     * (its latest snapshot and the events after it) before it is created, and its events are appended after every
     * message that persisted some.
     *
     * @param type the event class, or a sealed interface whose permitted classes (through every sealed level) are the
     *     events; each is declared to the codec of the journal under its {@link StoredEvent} name
     * @param eventUpcasters what turns old versions of stored events into the current ones
     * @return the copy
     */
    public EntityType<T> withEvents(Class<?> type, dev.sharding.spi.EventUpcaster... eventUpcasters) {
        return new EntityType<>(
                name,
                entityClass,
                numberOfShards,
                factory,
                messageTypes,
                stateType,
                shardIdFunction,
                Objects.requireNonNull(type, "type"),
                java.util.List.of(eventUpcasters));
    }

    /**
     * The event class (or sealed interface) of an event-sourced type ({@link #withEvents}).
     *
     * @return the event type, or {@code null} when the type is not event-sourced
     */
    public @org.jspecify.annotations.Nullable Class<?> eventType() {
        return eventType;
    }

    /**
     * The names this type's events are stored under ({@link StoredEvent}), one per event class.
     *
     * @return the names, empty when the type is not event-sourced
     */
    public Set<String> eventNames() {
        if (eventType == null) {
            return Set.of();
        }
        Set<String> names = new LinkedHashSet<>();
        for (Class<?> c : dev.sharding.internal.codec.ConcreteTypes.of(eventType)) {
            names.add(dev.sharding.internal.codec.EventCodec.storedName(c));
        }
        return names;
    }

    /**
     * What turns old versions of this type's stored events into the current ones.
     *
     * @return the upcasters, in the order given
     */
    public java.util.List<dev.sharding.spi.EventUpcaster> eventUpcasters() {
        return upcasters;
    }

    /**
     * Copy whose entity ids map to shards by this function instead of by their hash code.
     *
     * @param function the function; the same on every node
     * @return the copy
     */
    public EntityType<T> withShardIdFunction(ShardIdFunction function) {
        return new EntityType<>(
                name, entityClass, numberOfShards, factory, messageTypes, stateType, function, eventType, upcasters);
    }

    /**
     * How the type's entity ids map to shards.
     *
     * @return the function, {@link ShardIdFunction.HashCode#INSTANCE} by default
     */
    public ShardIdFunction shardIdFunction() {
        return shardIdFunction;
    }

    /**
     * The state class, if the entities keep a durable state.
     *
     * @return the class, or {@code null}
     */
    public @org.jspecify.annotations.Nullable Class<?> stateType() {
        return stateType;
    }

    /**
     * The name.
     *
     * @return the type name
     */
    public String name() {
        return name;
    }

    /**
     * The entity class.
     *
     * @return the class
     */
    public Class<T> entityClass() {
        return entityClass;
    }

    /**
     * The number of shards, or 0 for the node's default.
     *
     * @return the number
     */
    public int numberOfShards() {
        return numberOfShards;
    }

    /**
     * The factory of instances.
     *
     * @return the factory
     */
    public EntityFactory<T> factory() {
        return factory;
    }

    /**
     * The extra message types.
     *
     * @return the classes
     */
    public Set<Class<?>> messageTypes() {
        return messageTypes;
    }

    /**
     * The shard of an entity id under the default function: {@code floorMod(entityId.hashCode(), numberOfShards)},
     * the same on every node and every JVM ({@link ShardIdFunction.HashCode}).
     *
     * @param entityId the id
     * @param numberOfShards the number of shards
     * @return the shard id
     */
    public static int shardOf(String entityId, int numberOfShards) {
        return ShardIdFunction.HashCode.INSTANCE.shardId(entityId, numberOfShards);
    }
}
