package dev.sharding.spi;

import java.util.Objects;

/**
 * An event-sourced entity's state as of one of its events, so that its recovery replays only the events after it
 * ({@link EventJournal#recover}). A store keeps the latest snapshot of each entity.
 *
 * @param sequenceNr the sequence number of the last event the state includes (0 for the state before any)
 * @param payload the encoded state; a store copies what it keeps
 */
public record Snapshot(long sequenceNr, byte[] payload) {

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException when the sequence number is negative
     */
    public Snapshot {
        Objects.requireNonNull(payload, "payload");
        if (sequenceNr < 0) {
            throw new IllegalArgumentException(
                    "A snapshot's sequence number is " + sequenceNr + "; it must not be" + " negative");
        }
    }
}
