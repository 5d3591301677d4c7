package dev.sharding.baseline;

/**
 * The answer of both operations, shaped as the sample's.
 *
 * @param id the account id
 * @param balance its balance
 * @param node the instance that answered
 */
public record Balance(String id, long balance, String node) {}
