package dev.sharding.sample;

import dev.sharding.StoredEvent;

/**
 * What happened to an account when it took a deposit: the event {@link Account} persists, and the
 * {@link AccountHistory} projection turns into a row of the account's history. Stored as "deposited", version 1, so
 * that the class can be renamed or moved without touching the stored events.
 *
 * @param amount how much, positive
 */
@StoredEvent(name = "deposited", version = 1)
public record Deposited(long amount) {}
