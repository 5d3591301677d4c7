package dev.sharding.bench;

/**
 * A counter's state, the reply to every ask.
 *
 * @param entityId the counter's id
 * @param total the sum of every amount added
 * @param count how many {@link Add} messages it handled
 */
public record Total(String entityId, long total, long count) {}
