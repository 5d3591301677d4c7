package dev.sharding;

/**
 * The answer to an operator's request (a rebalance now, a shard handoff): whether it started, and what was done or
 * why nothing was.
 *
 * @param accepted whether the operation started
 * @param message what was done, or the error (unknown shard, unknown node, handoff already in progress...)
 */
public record AdminResult(boolean accepted, String message) {}
