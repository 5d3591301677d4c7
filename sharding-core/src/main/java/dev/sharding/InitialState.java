package dev.sharding;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a static, parameterless method of a {@link ShardedEntity} class that returns the initial value of its
 * {@link EntityState} for an entity whose state was never stored. Without one, the state class's no-arg constructor
 * is used.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface InitialState {}
