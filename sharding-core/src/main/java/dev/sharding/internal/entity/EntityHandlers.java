package dev.sharding.internal.entity;

import dev.sharding.EntityHandler;
import dev.sharding.UnhandledMessageException;
import dev.sharding.internal.codec.ConcreteTypes;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The {@link EntityHandler} methods of an entity class, found once per class. A message goes to the handler whose
 * parameter type is the most specific supertype of the message's runtime type; the choice is cached per runtime type.
 * Handlers are invoked through method handles, not reflection.
 */
public final class EntityHandlers {

    private static final MethodType GENERIC = MethodType.methodType(Object.class, Object.class, Object.class);

    private final Class<?> entityClass;

    private final List<Handler> handlers;

    private final Set<Class<?>> declaredTypes;

    private final ClassValue<@Nullable Handler> byMessageType = new ClassValue<>() {
        @Override
        protected @Nullable Handler computeValue(Class<?> type) {
            return mostSpecific(type);
        }
    };

    private EntityHandlers(Class<?> entityClass, List<Handler> handlers, Set<Class<?>> declaredTypes) {
        this.entityClass = entityClass;
        this.handlers = handlers;
        this.declaredTypes = declaredTypes;
    }

    /**
     * Finds the handlers of a class.
     *
     * @param entityClass the class
     * @return its handlers
     * @throws IllegalArgumentException if a handler does not take exactly one parameter, two handle the same type, or
     *     there is none
     */
    public static EntityHandlers of(Class<?> entityClass) {
        Map<Class<?>, Handler> byParam = new LinkedHashMap<>();
        Set<Class<?>> declared = new LinkedHashSet<>();
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        for (Class<?> c = entityClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (!m.isAnnotationPresent(EntityHandler.class) || m.isBridge()) {
                    continue;
                }
                String where = entityClass.getName() + "." + m.getName();
                if (m.getParameterCount() != 1) {
                    throw new IllegalArgumentException(
                            "@EntityHandler " + where + " must take exactly one parameter, the message");
                }
                if (Modifier.isStatic(m.getModifiers())) {
                    throw new IllegalArgumentException("@EntityHandler " + where + " must not be static");
                }
                Class<?> param = box(m.getParameterTypes()[0]);
                if (byParam.containsKey(param)) {
                    if (c != entityClass) {
                        continue; // overridden in a subclass
                    }
                    throw new IllegalArgumentException(
                            "Two @EntityHandler methods of " + entityClass.getName() + " take " + param.getName());
                }
                MethodHandle handle;
                try {
                    m.setAccessible(true);
                    handle = lookup.unreflect(m).asType(GENERIC);
                } catch (IllegalAccessException | RuntimeException e) {
                    throw new IllegalArgumentException(
                            "Cannot call @EntityHandler " + where + ": " + e.getMessage(), e);
                }
                boolean async = CompletionStage.class.isAssignableFrom(m.getReturnType());
                byParam.put(param, new Handler(param, handle, async, where));
                declare(param, declared);
                Class<?> reply = replyType(m);
                if (reply != null) {
                    declare(reply, declared);
                }
            }
        }
        if (byParam.isEmpty()) {
            throw new IllegalArgumentException(entityClass.getName() + " has no @EntityHandler method");
        }
        return new EntityHandlers(entityClass, List.copyOf(byParam.values()), Set.copyOf(declared));
    }

    /**
     * Declares the concrete classes a handler's parameter or reply type stands for ({@link ConcreteTypes}): other
     * interfaces and abstract classes declare nothing; their implementations are declared as extra message types.
     */
    private static void declare(Class<?> type, Set<Class<?>> declared) {
        ConcreteTypes.addTo(type, declared);
    }

    private static @Nullable Class<?> replyType(Method m) {
        Class<?> raw = m.getReturnType();
        if (raw == void.class || raw == Void.class) {
            return null;
        }
        if (CompletionStage.class.isAssignableFrom(raw)) {
            Type t = m.getGenericReturnType();
            if (t instanceof ParameterizedType p && p.getActualTypeArguments().length == 1) {
                Type arg = p.getActualTypeArguments()[0];
                if (arg instanceof WildcardType w && w.getUpperBounds().length == 1) {
                    arg = w.getUpperBounds()[0];
                }
                if (arg instanceof Class<?> c && c != Void.class && c != Object.class) {
                    return c;
                }
            }
            return null;
        }
        return box(raw);
    }

    private static Class<?> box(Class<?> c) {
        if (!c.isPrimitive()) {
            return c;
        }
        return MethodType.methodType(c).wrap().returnType();
    }

    private @Nullable Handler mostSpecific(Class<?> type) {
        Handler best = null;
        for (Handler h : handlers) {
            if (h.param.isAssignableFrom(type) && (best == null || best.param.isAssignableFrom(h.param))) {
                best = h;
            }
        }
        return best;
    }

    /**
     * The concrete classes the handlers take and return: the types the codec must accept for this entity.
     *
     * @return the classes
     */
    public Set<Class<?>> declaredTypes() {
        return declaredTypes;
    }

    /**
     * The handlers whose parameter is an interface or abstract class that is not sealed and that no declared class
     * implements: no message can reach them from another node, since only declared classes cross the network.
     *
     * @param declared every class the node declares
     * @return one explanation per such handler
     */
    public List<String> undeclaredParameters(Set<Class<?>> declared) {
        List<String> out = new ArrayList<>();
        for (Handler h : handlers) {
            Class<?> p = h.param;
            boolean open = (p.isInterface() || Modifier.isAbstract(p.getModifiers())) && !p.isSealed();
            if (open && p != Object.class && declared.stream().noneMatch(p::isAssignableFrom)) {
                out.add("@EntityHandler " + h.where + "(" + p.getSimpleName() + ") takes " + p.getName() + ", "
                        + (p.isInterface() ? "an interface" : "an abstract class") + " that is not sealed, and"
                        + " none of its implementations is declared: their messages are refused"
                        + " (MessageRejectedException) whenever the entity lives on another node than the sender."
                        + " Make it sealed (the classes it permits are then declared), or list its implementations"
                        + " in sharding.message-types (ShardingNode.Builder.messageTypes)");
            }
        }
        return out;
    }

    /**
     * Whether some handler takes a message of this type.
     *
     * @param messageType the message's class
     * @return whether it is handled
     */
    public boolean handles(Class<?> messageType) {
        return byMessageType.get(messageType) != null;
    }

    /**
     * Calls the handler of a message.
     *
     * @param entity the entity instance
     * @param message the message
     * @return what the handler returned: the reply, {@code null}, or a {@link CompletionStage} of the reply
     * @throws UnhandledMessageException if no handler takes the message
     * @throws Throwable whatever the handler threw
     */
    public @Nullable Object invoke(Object entity, Object message) throws Throwable {
        Handler h = byMessageType.get(message.getClass());
        if (h == null) {
            throw new UnhandledMessageException(entityClass.getName() + " has no @EntityHandler for "
                    + message.getClass().getName());
        }
        return (Object) h.handle.invokeExact(entity, message);
    }

    /**
     * The handler methods, for diagnostics.
     *
     * @return "Class.method(Param)" per handler
     */
    public List<String> describe() {
        List<String> out = new ArrayList<>();
        for (Handler h : handlers) {
            out.add(h.where + "(" + h.param.getSimpleName() + ")" + (h.async ? " async" : ""));
        }
        return out;
    }

    private record Handler(Class<?> param, MethodHandle handle, boolean async, String where) {}
}
