package dev.sharding.baseline;

import org.jspecify.annotations.Nullable;

/**
 * The body of a deposit.
 *
 * @param amount a positive whole number
 */
public record DepositRequest(@Nullable Long amount) {}
