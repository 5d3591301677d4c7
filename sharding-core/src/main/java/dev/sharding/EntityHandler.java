package dev.sharding;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method of a {@link ShardedEntity} that handles one message type: the method's single parameter.
 *
 * <p>The handler is chosen by the message's runtime type; the most specific parameter type wins. The return value is
 * the reply to an ask ({@code void} replies {@code null}); a {@link java.util.concurrent.CompletionStage} return value
 * completes the reply later, and the entity takes its next message only once it has completed. An exception fails the
 * ask with an {@link EntityException}; the entity stays alive.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface EntityHandler {}
