package dev.sharding.autoconfigure;

import dev.sharding.EntityState;
import dev.sharding.InitialState;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;

/**
 * Finds the durable state of an entity class: the {@code S} of an {@code EntityState<S>} constructor parameter, and
 * its initial value (an {@link InitialState} factory method of the entity class, or {@code S}'s no-arg constructor).
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
                if (c.getParameterTypes()[i] != EntityState.class) {
                    continue;
                }
                Class<?> s = ResolvableType.forMethodParameter(new MethodParameter(c, i))
                        .getGeneric(0)
                        .resolve();
                if (s == null || s.isInterface() || Modifier.isAbstract(s.getModifiers())) {
                    throw new IllegalArgumentException("The EntityState parameter of " + entityClass.getName()
                            + " must name a concrete state class, as in EntityState<Balance>");
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
