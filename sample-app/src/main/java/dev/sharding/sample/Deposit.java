package dev.sharding.sample;

/**
 * Adds money to an account. The reply is the new {@link Balance}.
 *
 * @param amount how much, positive
 */
public record Deposit(long amount) {}
