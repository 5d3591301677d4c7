package dev.sharding.autoconfigure.greeting;

/**
 * A singleton bean injected into {@link Greeter} entities.
 *
 * @param text the salutation
 */
public record Salutation(String text) {}
