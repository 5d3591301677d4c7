package dev.sharding.autoconfigure;

import dev.sharding.EntityContext;
import dev.sharding.EntityState;
import dev.sharding.EntityType;
import dev.sharding.EventSourcedState;
import dev.sharding.ShardRegion;
import dev.sharding.ShardedEntity;
import dev.sharding.ShardingNode;
import dev.sharding.spi.EventUpcaster;
import dev.sharding.spi.ShardIdFunction;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanInstantiationException;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.ResourceLoaderAware;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.filter.AnnotationTypeFilter;
import org.springframework.util.ClassUtils;

/**
 * Turns {@link ShardedEntity} classes into entity types of the auto-configured node.
 *
 * <p>Entity classes are found in two places: bean definitions whose class carries the annotation (a class registered
 * with {@code @Import} or picked up by component scanning), and a scan of the auto-configuration packages (the
 * package of the {@code @SpringBootApplication} class and below), the way Spring Data finds its entities. Each class
 * becomes a prototype bean definition, which is not an autowire candidate, plus two singletons named after the
 * entity type: {@code <type>EntityType}, an {@code EntityType<Class>} whose factory creates one instance per entity
 * id through the bean factory, and {@code <type>ShardRegion}, the node's {@code ShardRegion<Class>}, which
 * applications inject by its generic type.
 *
 * <p>The entity's {@link EntityContext} is injected from a thread-local that the factory sets around the creation;
 * the same registration makes the injection of an {@code EntityContext} into any other bean fail with a clear
 * message.
 */
final class ShardedEntityRegistrar
        implements BeanDefinitionRegistryPostProcessor, EnvironmentAware, ResourceLoaderAware {

    private final EntityContextResolver contexts = new EntityContextResolver();

    private Environment environment = new StandardEnvironment();

    private ResourceLoader resourceLoader = new DefaultResourceLoader();

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void setResourceLoader(ResourceLoader resourceLoader) {
        this.resourceLoader = resourceLoader;
    }

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
        if (!(registry instanceof ConfigurableListableBeanFactory beanFactory)) {
            throw new IllegalStateException("Sharded entities need a ConfigurableListableBeanFactory, not "
                    + registry.getClass().getName());
        }
        ClassLoader classLoader = beanFactory.getBeanClassLoader();
        Map<Class<?>, String> entities = new LinkedHashMap<>();
        for (String name : registry.getBeanDefinitionNames()) {
            BeanDefinition definition = registry.getBeanDefinition(name);
            Class<?> entityClass = entityClass(definition, classLoader);
            if (entityClass != null && !entities.containsKey(entityClass)) {
                makeEntityDefinition(definition);
                entities.put(entityClass, name);
            }
        }
        for (BeanDefinition candidate : scan(beanFactory)) {
            Class<?> entityClass = load(candidate.getBeanClassName(), classLoader);
            if (entityClass != null && !entities.containsKey(entityClass)) {
                String name = entityClass.getName();
                makeEntityDefinition(candidate);
                registry.registerBeanDefinition(name, candidate);
                entities.put(entityClass, name);
            }
        }
        Map<String, Class<?>> byType = new LinkedHashMap<>();
        entities.forEach((entityClass, beanName) -> {
            String type = typeName(entityClass);
            Class<?> other = byType.putIfAbsent(type, entityClass);
            if (other != null) {
                throw new ShardingConfigurationException(
                        "The entity classes " + other.getName() + " and " + entityClass.getName()
                                + " have the same entity type name '" + type + "'.",
                        "Give one of them another name with @ShardedEntity(type = \"...\").",
                        null);
            }
            registerType(registry, beanFactory, entityClass, beanName, type);
        });
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        beanFactory.registerResolvableDependency(EntityContext.class, this.contexts);
        beanFactory.registerResolvableDependency(EntityState.class, this.contexts.states());
        beanFactory.registerResolvableDependency(EventSourcedState.class, this.contexts.eventSourced());
    }

    private List<BeanDefinition> scan(ConfigurableListableBeanFactory beanFactory) {
        if (!AutoConfigurationPackages.has(beanFactory)) {
            return List.of();
        }
        ClassPathScanningCandidateComponentProvider scanner =
                new ClassPathScanningCandidateComponentProvider(false, this.environment);
        scanner.setResourceLoader(this.resourceLoader);
        scanner.addIncludeFilter(new AnnotationTypeFilter(ShardedEntity.class));
        return AutoConfigurationPackages.get(beanFactory).stream()
                .flatMap(pkg -> scanner.findCandidateComponents(pkg).stream())
                .toList();
    }

    private static @Nullable Class<?> entityClass(BeanDefinition definition, @Nullable ClassLoader classLoader) {
        if (definition.isAbstract() || definition.getFactoryMethodName() != null) {
            return null;
        }
        if (definition instanceof AnnotatedBeanDefinition annotated) {
            return annotated.getMetadata().isAnnotated(ShardedEntity.class.getName())
                    ? load(annotated.getMetadata().getClassName(), classLoader)
                    : null;
        }
        Class<?> type = load(definition.getBeanClassName(), classLoader);
        return type != null && type.isAnnotationPresent(ShardedEntity.class) ? type : null;
    }

    private static @Nullable Class<?> load(@Nullable String className, @Nullable ClassLoader classLoader) {
        if (className == null) {
            return null;
        }
        try {
            return ClassUtils.forName(className, classLoader);
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    private static void makeEntityDefinition(BeanDefinition definition) {
        definition.setScope(BeanDefinition.SCOPE_PROTOTYPE);
        definition.setAutowireCandidate(false);
    }

    private static String typeName(Class<?> entityClass) {
        ShardedEntity annotation = entityClass.getAnnotation(ShardedEntity.class);
        return annotation == null || annotation.type().isEmpty()
                ? EntityType.defaultName(entityClass)
                : annotation.type();
    }

    private void registerType(
            BeanDefinitionRegistry registry,
            ConfigurableListableBeanFactory beanFactory,
            Class<?> entityClass,
            String beanName,
            String type) {
        RootBeanDefinition entityType = new RootBeanDefinition(EntityType.class);
        entityType.setTargetType(ResolvableType.forClassWithGenerics(EntityType.class, entityClass));
        entityType.setInstanceSupplier(() -> entityType(beanFactory, entityClass, beanName));
        registerIfAbsent(registry, type + "EntityType", entityType);

        RootBeanDefinition region = new RootBeanDefinition(ShardRegion.class);
        region.setTargetType(ResolvableType.forClassWithGenerics(ShardRegion.class, entityClass));
        region.setInstanceSupplier(() -> beanFactory.getBean(ShardingNode.class).region(entityClass));
        registerIfAbsent(registry, type + "ShardRegion", region);
    }

    private static void registerIfAbsent(BeanDefinitionRegistry registry, String name, BeanDefinition definition) {
        if (!registry.containsBeanDefinition(name)) {
            registry.registerBeanDefinition(name, definition);
        }
    }

    private <T> EntityType<T> entityType(
            ConfigurableListableBeanFactory beanFactory, Class<T> entityClass, String beanName) {
        try {
            EntityType.checkHandlers(entityClass);
            BeanEntityFactory<T> factory = new BeanEntityFactory<>(beanFactory, beanName, entityClass, this.contexts);
            EntityType<T> type = EntityType.of(entityClass, factory, shardIdFunction(beanFactory, entityClass));
            if (factory.stateType() != null) {
                type = type.withState(factory.stateType());
            }
            if (factory.eventType() != null) {
                type = type.withEvents(factory.eventType());
                Set<String> names = type.eventNames();
                type = type.withEvents(
                        factory.eventType(),
                        beanFactory
                                .getBeanProvider(EventUpcaster.class)
                                .orderedStream()
                                .filter(u -> names.contains(u.eventName()))
                                .toArray(EventUpcaster[]::new));
            }
            return type;
        } catch (IllegalArgumentException e) {
            throw EntityDefinitionProblems.of(entityClass, e);
        }
    }

    /**
     * The annotation's shard id function: the bean of its class if there is one, else an instance made with its
     * no-argument constructor.
     */
    private static ShardIdFunction shardIdFunction(ConfigurableListableBeanFactory beanFactory, Class<?> entityClass) {
        ShardedEntity annotation = entityClass.getAnnotation(ShardedEntity.class);
        Class<? extends ShardIdFunction> type =
                annotation == null ? ShardIdFunction.HashCode.class : annotation.shardIdFunction();
        if (type == ShardIdFunction.HashCode.class) {
            return ShardIdFunction.HashCode.INSTANCE;
        }
        ShardIdFunction bean = beanFactory.getBeanProvider(type).getIfUnique();
        if (bean != null) {
            return bean;
        }
        try {
            return BeanUtils.instantiateClass(type.getDeclaredConstructor());
        } catch (NoSuchMethodException | BeanInstantiationException e) {
            throw new IllegalArgumentException("Cannot make its shard id function " + type.getName()
                    + ": declare it as a bean, or give it a no-argument constructor (" + e.getMessage() + ")");
        }
    }
}
