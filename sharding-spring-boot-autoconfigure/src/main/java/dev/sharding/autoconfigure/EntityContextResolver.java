package dev.sharding.autoconfigure;

import dev.sharding.EntityContext;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectFactory;

/**
 * Resolves {@link EntityContext} dependencies: registered with the bean factory as the resolvable dependency for that
 * type, it hands out the context of the entity being created on the current thread.
 *
 * <p>It is deliberately not {@link java.io.Serializable}: Spring then asks it for the value at injection time instead
 * of injecting a lazy proxy, so that a bean that is not an entity fails at startup rather than at first use.
 */
final class EntityContextResolver implements ObjectFactory<EntityContext> {

    private final ThreadLocal<@Nullable EntityContext> current = new ThreadLocal<>();

    /**
     * Runs an entity's creation with its context available for injection on this thread.
     *
     * @param context the context of the entity
     * @param creation creates the entity through the bean factory
     * @param <T> the entity class
     * @return the entity
     */
    <T> T withContext(EntityContext context, Supplier<T> creation) {
        EntityContext previous = this.current.get();
        this.current.set(context);
        try {
            return creation.get();
        } finally {
            if (previous == null) {
                this.current.remove();
            } else {
                this.current.set(previous);
            }
        }
    }

    /**
     * The context of the entity being created on this thread.
     *
     * @return the context
     * @throws IllegalStateException when no entity is being created, that is when a bean that is not an entity asks
     *     for an {@code EntityContext}
     */
    @Override
    public EntityContext getObject() {
        EntityContext context = this.current.get();
        if (context == null) {
            throw new IllegalStateException("An EntityContext can only be injected into a @ShardedEntity class, "
                    + "whose instances the sharding node creates, one per entity id. Other beans reach entities "
                    + "through an injected ShardRegion<EntityClass>.");
        }
        return context;
    }
}
