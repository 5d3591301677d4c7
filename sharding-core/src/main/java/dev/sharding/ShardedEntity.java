package dev.sharding;

import dev.sharding.spi.ShardIdFunction;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a class whose instances are sharded entities: one instance per entity id, alive in at most one place in the
 * cluster, created when the first message for its id arrives.
 *
 * <p>Messages reach the entity through its {@link EntityHandler} methods, one at a time.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ShardedEntity {

    /**
     * The entity type name, the same on every node. Empty means the decapitalised simple class name.
     *
     * @return the type name
     */
    String type() default "";

    /**
     * The number of shards the type's entities are spread over; it must be the same on every node and must not
     * change while the cluster runs. {@code 0} takes the configured value (default 100).
     *
     * @return the number of shards, or 0 for the configured default
     */
    int numberOfShards() default 0;

    /**
     * How an entity id maps to its shard, for locality (for example all of a customer's entities in one shard); the
     * same on every node. In a Spring application a bean of this class is used if there is one, else an instance made
     * with its no-argument constructor. The default spreads ids by their hash code.
     *
     * @return the function's class
     */
    Class<? extends ShardIdFunction> shardIdFunction() default ShardIdFunction.HashCode.class;
}
