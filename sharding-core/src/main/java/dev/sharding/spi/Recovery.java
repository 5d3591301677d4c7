package dev.sharding.spi;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What an event-sourced entity starts from ({@link EventJournal#recover}): its latest snapshot, the events after it,
 * its last sequence number and the ids of the messages it applied lately. The state is the snapshot's (or the initial
 * state, without one) with the events applied in order.
 *
 * @param snapshot the latest snapshot, or {@code null} when none was stored
 * @param events the events after the snapshot (all of them, without one), in sequence order, the last one numbered
 *     {@code lastSequenceNr}
 * @param lastSequenceNr the number of the entity's last event (0 for none): the {@code expectedLastSequenceNr} of
 *     its next append
 * @param epoch the epoch of the entity's last append (0 for none)
 * @param applied the encoded ids of the messages it applied lately, as its last append stored them, or {@code null}
 */
public record Recovery(
        @Nullable Snapshot snapshot,
        List<PersistedEvent> events,
        long lastSequenceNr,
        long epoch,
        byte @Nullable [] applied) {

    /** Copies the list of events. */
    public Recovery {
        events = List.copyOf(events);
    }
}
