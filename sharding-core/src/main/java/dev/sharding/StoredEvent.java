package dev.sharding;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * How an event class is stored in the journal ({@link EventSourcedState}): under a name that outlives renames of the
 * class, and with the version of its fields. Without this annotation an event is stored under its class's simple name,
 * version 1.
 *
 * <p>To rename an event class, keep its stored name here. To change its fields, raise the version and register an
 * {@link dev.sharding.spi.EventUpcaster} that turns the fields of the version before into this one's; a field added
 * with a default needs no upcaster (a missing field reads as its default), and a field removed is ignored when old
 * events are read.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface StoredEvent {

    /**
     * The name the event is stored under, unique among the event classes of one entity type.
     *
     * @return the name; empty for the class's simple name
     */
    String name() default "";

    /**
     * The version of the event's fields, from 1.
     *
     * @return the version
     */
    int version() default 1;
}
