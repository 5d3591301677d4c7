package dev.sharding.autoconfigure;

import dev.sharding.ShardRegion;
import dev.sharding.ShardedEntity;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.analyzer.AbstractInjectionFailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;

/**
 * Explains a {@code ShardRegion<X>} that cannot be injected. Spring Boot's own report only says that a bean of type
 * {@code ShardRegion} is missing and suggests defining one, which is never the fix: the region exists once the starter
 * has found {@code X} as a {@link ShardedEntity} class. Most often {@code X} lies outside the package of the
 * {@code @SpringBootApplication} class, where the starter does not look for entities.
 */
class MissingShardRegionFailureAnalyzer extends AbstractInjectionFailureAnalyzer<NoSuchBeanDefinitionException>
        implements Ordered {

    private final Environment environment;

    MissingShardRegionFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(
            Throwable rootFailure, NoSuchBeanDefinitionException cause, @Nullable String description) {
        ResolvableType type = cause.getResolvableType();
        if (type == null || type.toClass() != ShardRegion.class) {
            return null;
        }
        Class<?> entity = type.getGeneric(0).resolve();
        String region = "ShardRegion<" + (entity == null ? "?" : entity.getName()) + ">";
        String what = (description == null ? "A bean" : description) + " needs a " + region + ", which this node has"
                + " not: ";
        if (!this.environment.getProperty("sharding.enabled", Boolean.class, true)) {
            return new FailureAnalysis(
                    what + "sharding.enabled is false, so no sharding node and no region is configured.",
                    "Remove sharding.enabled=false, or keep the beans that use regions out of this application.",
                    cause);
        }
        if (entity == null) {
            return new FailureAnalysis(
                    what + "a region is injected by the entity class it serves, and this one names none.",
                    "Declare the parameter or field as ShardRegion<YourEntity>, YourEntity being a @ShardedEntity"
                            + " class.",
                    cause);
        }
        if (!entity.isAnnotationPresent(ShardedEntity.class)) {
            return new FailureAnalysis(
                    what + entity.getName() + " is not annotated with @ShardedEntity.",
                    "Annotate " + entity.getName() + " with @ShardedEntity, or inject the region of the entity class"
                            + " meant.",
                    cause);
        }
        return new FailureAnalysis(
                what + "the starter did not find the @ShardedEntity class " + entity.getName() + ". It looks for"
                        + " entity classes in the package of the @SpringBootApplication class and below it, and"
                        + " among the application's beans.",
                "Move " + entity.getName() + " into the package of the @SpringBootApplication class or below it,"
                        + " or register it with @Import(" + entity.getSimpleName() + ".class) on a @Configuration"
                        + " class.",
                cause);
    }
}
