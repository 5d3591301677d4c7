package dev.sharding.autoconfigure;

import dev.sharding.EntityContext;
import dev.sharding.EntityState;
import dev.sharding.spi.EntityFactory;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;

/**
 * Makes entity instances as prototype beans: every instance gets full dependency injection plus its own
 * {@link EntityContext} (and {@link EntityState} when its constructor takes an {@code EntityState<S>}), its
 * {@code @PostConstruct} methods run when it is created and its {@code @PreDestroy} methods
 * when its entity stops.
 *
 * @param <T> the entity class
 */
final class BeanEntityFactory<T> implements EntityFactory<T> {

    private final ConfigurableBeanFactory beanFactory;

    private final String beanName;

    private final Class<T> entityClass;

    private final EntityContextResolver contexts;

    private final @Nullable Class<?> stateType;

    private final @Nullable Supplier<?> initialState;

    private final @Nullable Class<?> eventType;

    private final @Nullable BiFunction<Object, Object, Object> applyEvent;

    /**
     * Creates the factory of one entity class.
     *
     * @param beanFactory the bean factory holding the class's prototype bean definition
     * @param beanName the name of that definition
     * @param entityClass the class
     * @param contexts hands the entity its context during creation
     */
    BeanEntityFactory(
            ConfigurableBeanFactory beanFactory,
            String beanName,
            Class<T> entityClass,
            EntityContextResolver contexts) {
        this.beanFactory = beanFactory;
        this.beanName = beanName;
        this.entityClass = entityClass;
        this.contexts = contexts;
        this.stateType = EntityStates.stateTypeOf(entityClass);
        this.initialState = this.stateType == null ? null : EntityStates.initialValue(entityClass, this.stateType);
        this.eventType = EntityStates.eventTypeOf(entityClass);
        this.applyEvent = this.eventType == null || this.stateType == null
                ? null
                : EntityStates.applyEventOf(entityClass, this.stateType, this.eventType);
    }

    /** The event type the entity declares with an {@code EventSourcedState<S, E>} constructor parameter, if any. */
    @Nullable
    Class<?> eventType() {
        return this.eventType;
    }

    /** The state class the entity declares with an {@code EntityState<S>} constructor parameter, if any. */
    @Nullable
    Class<?> stateType() {
        return this.stateType;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private @Nullable Object stateOf(EntityContext context) {
        if (this.stateType == null || this.initialState == null) {
            return null;
        }
        if (this.eventType != null && this.applyEvent != null) {
            return context.eventSourced(
                    (Class) this.stateType, (Class) this.eventType, (Supplier) this.initialState, (BiFunction)
                            this.applyEvent);
        }
        return context.state((Class) this.stateType, (Supplier) this.initialState);
    }

    /**
     * Creates the instance through the bean factory. When the entity's own code fails, that failure is thrown rather
     * than Spring's wrapper, so that callers see the entity's exception class.
     */
    @Override
    public T create(EntityContext context) {
        try {
            return this.contexts.withContext(
                    context, stateOf(context), () -> this.beanFactory.getBean(this.beanName, this.entityClass));
        } catch (BeansException e) {
            Throwable cause = e.getMostSpecificCause();
            if (cause instanceof RuntimeException runtime && !(cause instanceof BeansException)) {
                throw runtime;
            }
            throw e;
        }
    }

    /**
     * Runs the instance's destruction callbacks ({@code @PreDestroy}, {@code DisposableBean}) as for a bean of its
     * definition.
     */
    @Override
    public void destroy(T entity) {
        this.beanFactory.destroyBean(this.beanName, entity);
    }

    @Override
    public String toString() {
        return "BeanEntityFactory[" + this.beanName + "]";
    }
}
