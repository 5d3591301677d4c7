package dev.sharding.autoconfigure;

import dev.sharding.ApplyEvent;
import dev.sharding.EntityState;
import dev.sharding.EventSourcedState;
import dev.sharding.InitialState;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;

/**
 * Finds the durable state of an entity class: the {@code S} of an {@code EntityState<S>} (or
 * {@code EventSourcedState<S, E>}) constructor parameter, its initial value (an {@link InitialState} factory method of
 * the entity class, or {@code S}'s no-arg constructor), and for an event-sourced one its event type {@code E} and its
 * {@link ApplyEvent} fold.
 */
final class EntityStates {

    private EntityStates() {}

    /**
     * The state class of an entity class.
     *
     * @param entityClass the class
     * @return {@code S} of its {@code EntityState<S>} constructor parameter, or {@code null} if it has none
     * @throws IllegalArgumentException if the parameter does not name a concrete class
     */
    static @Nullable Class<?> stateTypeOf(Class<?> entityClass) {
        Class<?> found = null;
        for (Constructor<?> c : entityClass.getDeclaredConstructors()) {
            for (int i = 0; i < c.getParameterCount(); i++) {
                Class<?> p = c.getParameterTypes()[i];
                if (p != EntityState.class && p != EventSourcedState.class) {
                    continue;
                }
                Class<?> s = ResolvableType.forMethodParameter(new MethodParameter(c, i))
                        .getGeneric(0)
                        .resolve();
                if (s == null || s.isInterface() || Modifier.isAbstract(s.getModifiers())) {
                    throw new IllegalArgumentException("The " + p.getSimpleName() + " parameter of "
                            + entityClass.getName() + " must name a concrete state class, as in " + p.getSimpleName()
                            + (p == EntityState.class ? "<Balance>" : "<Balance, BalanceEvent>"));
                }
                if (found != null && !found.equals(s)) {
                    throw new IllegalArgumentException(entityClass.getName() + " declares two state classes, "
                            + found.getName() + " and " + s.getName());
                }
                found = s;
            }
        }
        return found;
    }

    /**
     * The event type of an event-sourced entity class.
     *
     * @param entityClass the class
     * @return {@code E} of its {@code EventSourcedState<S, E>} constructor parameter, or {@code null} if it has none
     * @throws IllegalArgumentException if the parameter does not name its event type, or two parameters differ
     */
    static @Nullable Class<?> eventTypeOf(Class<?> entityClass) {
        Class<?> found = null;
        for (Constructor<?> c : entityClass.getDeclaredConstructors()) {
            for (int i = 0; i < c.getParameterCount(); i++) {
                if (c.getParameterTypes()[i] != EventSourcedState.class) {
                    continue;
                }
                Class<?> e = ResolvableType.forMethodParameter(new MethodParameter(c, i))
                        .getGeneric(1)
                        .resolve();
                if (e == null || e == Object.class) {
                    throw new IllegalArgumentException("The EventSourcedState parameter of " + entityClass.getName()
                            + " must name its event type, as in EventSourcedState<Balance, BalanceEvent>");
                }
                if (found != null && !found.equals(e)) {
                    throw new IllegalArgumentException(entityClass.getName() + " declares two event types, "
                            + found.getName() + " and " + e.getName());
                }
                found = e;
            }
        }
        return found;
    }

    /**
     * The fold of an event-sourced entity class: its static {@link ApplyEvent} method.
     *
     * @param entityClass the entity class
     * @param stateType its state class
     * @param eventType its event type
     * @return the fold
     * @throws IllegalArgumentException if there is no such method, more than one, or one of another shape
     */
    static BiFunction<Object, Object, Object> applyEventOf(
            Class<?> entityClass, Class<?> stateType, Class<?> eventType) {
        Method found = null;
        for (Method m : entityClass.getDeclaredMethods()) {
            if (!m.isAnnotationPresent(ApplyEvent.class)) {
                continue;
            }
            if (!Modifier.isStatic(m.getModifiers())
                    || m.getParameterCount() != 2
                    || !m.getParameterTypes()[0].isAssignableFrom(stateType)
                    || !m.getParameterTypes()[1].isAssignableFrom(eventType)
                    || !stateType.isAssignableFrom(m.getReturnType())) {
                throw new IllegalArgumentException("@ApplyEvent method " + entityClass.getName() + "." + m.getName()
                        + " must be static, take (" + stateType.getSimpleName() + " state, "
                        + eventType.getSimpleName() + " event) and return the " + stateType.getSimpleName()
                        + " after the event");
            }
            if (found != null) {
                throw new IllegalArgumentException(entityClass.getName() + " has two @ApplyEvent methods, "
                        + found.getName() + " and " + m.getName() + ": one folds every event");
            }
            found = m;
        }
        if (found == null) {
            throw new IllegalArgumentException(entityClass.getName() + " has an EventSourcedState but no @ApplyEvent"
                    + " method: declare static " + stateType.getSimpleName() + " apply(" + stateType.getSimpleName()
                    + " state, " + eventType.getSimpleName() + " event), which returns the state after the event");
        }
        Method apply = found;
        apply.setAccessible(true);
        return (state, event) -> invoke(() -> apply.invoke(null, state, event));
    }

    /**
     * The initial value of an entity's state.
     *
     * @param entityClass the entity class
     * @param stateType its state class
     * @param <S> the state class
     * @return a supplier of the initial value
     * @throws IllegalArgumentException if the entity declares no {@link InitialState} method and the state class
     *     has no no-arg constructor
     */
    static <S> Supplier<S> initialValue(Class<?> entityClass, Class<S> stateType) {
        for (Method m : entityClass.getDeclaredMethods()) {
            if (!m.isAnnotationPresent(InitialState.class)) {
                continue;
            }
            if (!Modifier.isStatic(m.getModifiers())
                    || m.getParameterCount() != 0
                    || !stateType.isAssignableFrom(m.getReturnType())) {
                throw new IllegalArgumentException("@InitialState method " + entityClass.getName() + "." + m.getName()
                        + " must be static, take no parameter and return " + stateType.getName());
            }
            m.setAccessible(true);
            return () -> stateType.cast(invoke(() -> m.invoke(null)));
        }
        Constructor<S> noArg;
        try {
            noArg = stateType.getDeclaredConstructor();
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("The state class " + stateType.getName() + " of "
                    + entityClass.getName() + " has no no-arg constructor: declare a static @InitialState method"
                    + " returning the state of an entity never seen");
        }
        noArg.setAccessible(true);
        return () -> stateType.cast(invoke(noArg::newInstance));
    }

    private static Object invoke(Reflective call) {
        try {
            return call.call();
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    @FunctionalInterface
    private interface Reflective {
        Object call() throws ReflectiveOperationException;
    }
}
