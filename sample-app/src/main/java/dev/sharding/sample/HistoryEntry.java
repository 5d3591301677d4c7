package dev.sharding.sample;

import java.time.Instant;

/**
 * One deposit in an account's history.
 *
 * @param amount how much was deposited
 * @param sequenceNr the number of its event among the account's events: 1, 2, 3... with no gap, in deposit order
 * @param depositedAt when its event was stored, on the database's clock
 */
public record HistoryEntry(long amount, long sequenceNr, Instant depositedAt) {}
