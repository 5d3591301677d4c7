package dev.sharding.internal.codec;

import java.lang.reflect.Modifier;
import java.util.LinkedHashSet;
import java.util.Set;

/** The concrete classes a declared type stands for. */
public final class ConcreteTypes {

    private ConcreteTypes() {}

    /**
     * Adds the concrete classes a type stands for: the class itself, or, for a sealed interface or abstract class,
     * every concrete class it permits, through sealed levels below it. Other interfaces and abstract classes add
     * nothing: their implementations must be declared one by one.
     *
     * @param type the type
     * @param into where the classes go
     */
    public static void addTo(Class<?> type, Set<Class<?>> into) {
        if (!type.isInterface() && !Modifier.isAbstract(type.getModifiers())) {
            into.add(type);
        } else if (type.isSealed()) {
            for (Class<?> permitted : type.getPermittedSubclasses()) {
                addTo(permitted, into);
            }
        }
    }

    /**
     * The concrete classes a type stands for ({@link #addTo}).
     *
     * @param type the type
     * @return the classes, in declaration order
     */
    public static Set<Class<?>> of(Class<?> type) {
        Set<Class<?>> all = new LinkedHashSet<>();
        addTo(type, all);
        return all;
    }
}
