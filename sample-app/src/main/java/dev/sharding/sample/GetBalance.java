package dev.sharding.sample;

/**
 * Asks an account for its {@link Balance}.
 */
public record GetBalance() {}
