package dev.sharding.autoconfigure.greeting;

/**
 * A message type no handler declares, allowed on the wire through {@code sharding.message-types}.
 *
 * @param text a text
 */
public record ExtraMessage(String text) {}
