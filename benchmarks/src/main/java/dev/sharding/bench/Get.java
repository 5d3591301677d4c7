package dev.sharding.bench;

/**
 * Reads a counter without changing it: the ask that primes shards and confirms counts.
 *
 * @param entityId the counter's id
 */
public record Get(String entityId) {}
