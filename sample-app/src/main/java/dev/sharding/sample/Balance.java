package dev.sharding.sample;

/**
 * An account's balance, and where the account lives.
 *
 * @param id the account id
 * @param balance the balance
 * @param node the name of the node hosting the account
 */
public record Balance(String id, long balance, String node) {}
