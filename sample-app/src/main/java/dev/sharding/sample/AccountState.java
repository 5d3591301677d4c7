package dev.sharding.sample;

/**
 * What an account stores: its balance. Written through the store after every deposit, before the deposit is
 * acknowledged.
 *
 * @param balance the balance
 */
public record AccountState(long balance) {}
