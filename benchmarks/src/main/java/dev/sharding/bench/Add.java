package dev.sharding.bench;

/**
 * Adds {@code amount} to a counter: the message of every workload, sent by tell (W1, W2, W5) or by ask (W3, W4).
 *
 * @param entityId the counter's id, {@code "e-" + i}
 * @param amount what to add
 */
public record Add(String entityId, long amount) {}
