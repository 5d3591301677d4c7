package dev.sharding;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the static method of a {@link ShardedEntity} class with an {@link EventSourcedState} that folds an event into
 * the state: {@code static S apply(S state, E event)}, returning the state after the event. It must be a pure
 * function of its arguments: it runs when an event is persisted and again, on every stored event, when the entity
 * recovers after a crash.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ApplyEvent {}
