package dev.sharding.spi;

import java.util.Map;

/**
 * Turns the stored fields of an old version of an event into those of the next version, so that events written
 * before a change of their class still read ({@link dev.sharding.StoredEvent}). An event stored at version 1 whose
 * class is now at version 3 goes through the upcaster from 1 and then the one from 2.
 *
 * <p>The fields are given as the stored document reads: a map of names to values, where a value is a string, a
 * number, a boolean, {@code null}, a list of such values, or a map of them. An upcaster returns the fields of the next
 * version (it may change and return the map it was given).
 */
public interface EventUpcaster {

    /**
     * The name the event is stored under ({@link dev.sharding.StoredEvent#name()}, or its class's simple name).
     *
     * @return the name
     */
    String eventName();

    /**
     * The version this upcaster reads; it writes the next one.
     *
     * @return the version, from 1
     */
    int fromVersion();

    /**
     * Turns the fields of version {@link #fromVersion()} into those of the next version.
     *
     * @param fields the stored fields
     * @return the fields of the next version
     */
    Map<String, Object> upcast(Map<String, Object> fields);
}
