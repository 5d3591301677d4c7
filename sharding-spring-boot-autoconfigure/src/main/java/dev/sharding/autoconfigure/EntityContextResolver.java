package dev.sharding.autoconfigure;

import dev.sharding.EntityContext;
import dev.sharding.EntityState;
import dev.sharding.EventSourcedState;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectFactory;

/**
 * Resolves {@link EntityContext}, {@link EntityState} and {@link EventSourcedState} dependencies: registered with the bean factory as the
 * resolvable dependencies for those types, it hands out the context and the state of the entity being created on the
 * current thread.
 *
 * <p>Its factories are deliberately not {@link java.io.Serializable}: Spring then asks them for the value at injection
 * time instead of injecting a lazy proxy, so that a bean that is not an entity fails at startup rather than at first
 * use.
 */
final class EntityContextResolver implements ObjectFactory<EntityContext> {

    /** One holder per thread, changed in place: no thread-local entry is made and dropped per entity. */
    private final ThreadLocal<Creation> current = ThreadLocal.withInitial(Creation::new);

    private final ObjectFactory<EntityState<?>> states = () -> {
        if (!(this.current.get().state instanceof EntityState<?> state)) {
            throw new IllegalStateException("An EntityState can only be injected into the constructor of a "
                    + "@ShardedEntity class; its type argument (EntityState<S>) names the state class.");
        }
        return state;
    };

    private final ObjectFactory<EventSourcedState<?, ?>> eventSourced = () -> {
        if (!(this.current.get().state instanceof EventSourcedState<?, ?> state)) {
            throw new IllegalStateException("An EventSourcedState can only be injected into the constructor of a "
                    + "@ShardedEntity class; its type arguments (EventSourcedState<S, E>) name the state and event"
                    + " types.");
        }
        return state;
    };

    <T> T withContext(EntityContext context, @Nullable Object state, Supplier<T> creation) {
        Creation c = this.current.get();
        EntityContext previousContext = c.context;
        Object previousState = c.state;
        c.context = context;
        c.state = state;
        try {
            return creation.get();
        } finally {
            c.context = previousContext;
            c.state = previousState;
        }
    }

    /** The factory of the state handle of the entity being created. */
    ObjectFactory<EntityState<?>> states() {
        return this.states;
    }

    /** The factory of the event-sourced state handle of the entity being created. */
    ObjectFactory<EventSourcedState<?, ?>> eventSourced() {
        return this.eventSourced;
    }

    @Override
    public EntityContext getObject() {
        EntityContext context = this.current.get().context;
        if (context == null) {
            throw new IllegalStateException("An EntityContext can only be injected into a @ShardedEntity class, "
                    + "whose instances the sharding node creates, one per entity id. Other beans reach entities "
                    + "through an injected ShardRegion<EntityClass>.");
        }
        return context;
    }

    /** The entity being created on a thread (nested creations restore the outer one). */
    private static final class Creation {

        @Nullable
        EntityContext context;

        /** Its {@link EntityState} or {@link EventSourcedState}. */
        @Nullable
        Object state;
    }
}
