package dev.sharding.sample;

/**
 * An account's state: its balance, the sum of its {@link Deposited} events. Stored as a snapshot every so many
 * events, and carried with the account when its shard moves.
 *
 * @param balance the balance
 */
public record AccountState(long balance) {}
