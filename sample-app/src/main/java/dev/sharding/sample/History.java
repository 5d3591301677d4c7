package dev.sharding.sample;

import java.util.List;

/**
 * An account's history, as the read model holds it.
 *
 * @param id the account id
 * @param entries its deposits, in the order they were made
 */
public record History(String id, List<HistoryEntry> entries) {}
