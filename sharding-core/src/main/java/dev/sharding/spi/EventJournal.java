package dev.sharding.spi;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The event journal of a {@link ShardingStore}: what event-sourced entities append, and what recovers them and feeds
 * projections. Optional ({@link ShardingStore.Capability#EVENT_JOURNAL}): every method's default fails with
 * {@link UnsupportedOperationException}, which only a caller that did not ask the store's capabilities first sees.
 * A store that implements the journal declares the capability and overrides every method.
 *
 * <h2>Appends</h2>
 * An append ({@link #appendEvents}) is atomic (all its events, its snapshot and its applied message ids, or nothing),
 * fenced by the shard's epoch exactly as a state write is (a stale owner's append fails with
 * {@link StaleEpochException} and changes nothing) and checked against the entity's last sequence number (a
 * different one fails it with {@link SequenceConflictException} and changes nothing). So an entity's events are
 * numbered 1, 2, 3... with no gap and no duplicate, whoever races to append. An entity's journal head (its last
 * sequence number, the epoch of its last append and its applied message ids) is its state row
 * ({@link ShardingStore#read} shows it with an empty state and the last sequence number as version): an entity is
 * either event-sourced, appended to, or has a state, written and deleted, never both.
 *
 * <h2>Global offsets and the gap guarantee</h2>
 * Every event also gets a global offset, unique in the store. Offsets are assigned in the order in which appends
 * commit, with no holes between committed events: whenever a reader sees the event of offset {@code n}, it sees every
 * event with an offset below {@code n} too. So a reader that pages by offset ({@link #eventsByTag},
 * {@link #eventsBySlice}), asking each time for the events after the last offset it got, never skips an event, even
 * one whose append committed late in a transaction that began before others committed. A store proves it in its own
 * way; the contract tests check it with concurrent writers and a reader.
 *
 * <h2>Reads</h2>
 * Reads return bounded pages, at most {@value #MAX_PAGE} events, in order, from what was committed when they ran.
 * They are for recovery ({@link #recover}), for the history of one entity ({@link #eventsOf}), and for projections,
 * which follow a tag or a slice (a range of shards of one entity type, so that the shards of a type can be split
 * between several instances of a projection).
 */
public interface EventJournal {

    /** The most events a read returns. */
    int MAX_PAGE = 10_000;

    /** The most events one append may hold. */
    int MAX_EVENTS_PER_APPEND = 1000;

    /**
     * The most bytes the payloads of one append (events and snapshot) may hold together: an append holds the store's
     * order of offsets while it writes them ({@link EventJournal}), so a huge one would hold up every other node's.
     */
    int MAX_APPEND_BYTES = 8 * 1024 * 1024;

    /**
     * Appends events to an entity's journal, with the ids of the messages the entity applied and optionally a
     * snapshot, in one transaction (through the store's group commit where it has one).
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param shardId the entity's shard
     * @param epoch the epoch of the writer's allocation of the shard
     * @param expectedLastSequenceNr the entity's last sequence number as the appender knows it (0 before its first
     *     event); the events are numbered from the next one on
     * @param events the events, at most {@value #MAX_EVENTS_PER_APPEND}; may be empty, to store only the applied
     *     message ids or a snapshot
     * @param applied the encoded ids of the messages the entity applied lately and their replies, replacing the stored
     *     ones; {@code null} stores none
     * @param snapshot a snapshot to store in place of the entity's last one, at most at the last sequence number of
     *     this append, or {@code null}
     * @return the entity's new last sequence number, once durable; failed with {@link StaleEpochException} when the
     *     shard was allocated since or the entity was appended to under a higher epoch, with
     *     {@link SequenceConflictException} when the entity's last sequence number is not
     *     {@code expectedLastSequenceNr}, and with {@link IllegalArgumentException} for input the store cannot keep
     *     (see {@link #checkAppend}): in each case nothing was changed
     */
    default CompletableFuture<Long> appendEvents(
            String typeName,
            String entityId,
            int shardId,
            long epoch,
            long expectedLastSequenceNr,
            List<NewEvent> events,
            byte @Nullable [] applied,
            @Nullable Snapshot snapshot) {
        return unsupported();
    }

    /**
     * Reads what an entity starts from: its latest snapshot, every event after it, its last sequence number and its
     * applied message ids, consistent with each other whatever appends commit meanwhile.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @return the recovery; without events, snapshot or ids for an entity never appended to
     */
    default CompletableFuture<Recovery> recover(String typeName, String entityId) {
        return unsupported();
    }

    /**
     * Reads an entity's events from a sequence number on.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param fromSequenceNr the first sequence number wanted
     * @param maxCount the most events to return, 1 to {@value #MAX_PAGE}
     * @return the events, in sequence order; fewer than {@code maxCount} only at the end of the journal
     */
    default CompletableFuture<List<PersistedEvent>> eventsOf(
            String typeName, String entityId, long fromSequenceNr, int maxCount) {
        return unsupported();
    }

    /**
     * Reads the events of a tag, across entities and types, after a global offset.
     *
     * @param tag the tag
     * @param afterOffset the last offset already read (0 for the start)
     * @param maxCount the most events to return, 1 to {@value #MAX_PAGE}
     * @return the events, in offset order; the next page starts after the last one's offset, and no event committed
     *     since is ever placed before it
     */
    default CompletableFuture<List<PersistedEvent>> eventsByTag(String tag, long afterOffset, int maxCount) {
        return unsupported();
    }

    /**
     * Reads the events of an entity type's slice (the entities of a range of shards) after a global offset.
     *
     * @param typeName the entity type
     * @param minShardId the slice's first shard
     * @param maxShardId the slice's last shard, at least {@code minShardId}
     * @param afterOffset the last offset already read (0 for the start)
     * @param maxCount the most events to return, 1 to {@value #MAX_PAGE}
     * @return the events, in offset order; the next page starts after the last one's offset, and no event committed
     *     since is ever placed before it
     */
    default CompletableFuture<List<PersistedEvent>> eventsBySlice(
            String typeName, int minShardId, int maxShardId, long afterOffset, int maxCount) {
        return unsupported();
    }

    /**
     * The highest global offset committed (0 before the first event): how far a projection has to go.
     *
     * @return the offset
     */
    default CompletableFuture<Long> lastGlobalOffset() {
        return unsupported();
    }

    /**
     * Checks an append's arguments as every store must, before anything is written: sequence numbers not negative,
     * at most {@value #MAX_EVENTS_PER_APPEND} events, their payloads and the snapshot's at most
     * {@value #MAX_APPEND_BYTES} bytes together, and a snapshot not past the append's last event. Stores call it
     * first and fail the append with its exception.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param expectedLastSequenceNr the appender's last sequence number
     * @param events the events
     * @param snapshot the snapshot, or {@code null}
     * @throws IllegalArgumentException when the append breaks a rule, naming it
     */
    static void checkAppend(
            String typeName,
            String entityId,
            long expectedLastSequenceNr,
            List<NewEvent> events,
            @Nullable Snapshot snapshot) {
        Objects.requireNonNull(typeName, "typeName");
        Objects.requireNonNull(entityId, "entityId");
        String of = "An append of events to [" + typeName + "/"
                + (entityId.length() > 64 ? entityId.substring(0, 64) + "..." : entityId) + "]";
        if (expectedLastSequenceNr < 0) {
            throw new IllegalArgumentException(
                    of + " expects last sequence number " + expectedLastSequenceNr + "; it must not be negative");
        }
        if (events.size() > MAX_EVENTS_PER_APPEND) {
            throw new IllegalArgumentException(of + " holds " + events.size() + " events; at most "
                    + MAX_EVENTS_PER_APPEND + " are allowed in one append");
        }
        long bytes = snapshot == null ? 0 : snapshot.payload().length;
        for (NewEvent event : events) {
            bytes += Objects.requireNonNull(event, "event").payload().length;
        }
        if (bytes > MAX_APPEND_BYTES) {
            throw new IllegalArgumentException(of + " holds " + bytes + " bytes of payload; at most " + MAX_APPEND_BYTES
                    + " are allowed in one append (keep large data outside the journal)");
        }
        long last = expectedLastSequenceNr + events.size();
        if (snapshot != null && snapshot.sequenceNr() > last) {
            throw new IllegalArgumentException(of + " has a snapshot at sequence number " + snapshot.sequenceNr()
                    + ", past the append's last event (" + last + ")");
        }
    }

    /**
     * Checks the bounds of a page: {@code maxCount} from 1 to {@value #MAX_PAGE}, an offset or sequence number not
     * negative.
     *
     * @param from the first sequence number or the offset after which the page starts
     * @param maxCount the most events wanted
     * @throws IllegalArgumentException when either is out of bounds
     */
    static void checkPage(long from, int maxCount) {
        if (maxCount < 1 || maxCount > MAX_PAGE) {
            throw new IllegalArgumentException(
                    "A read of events asks for " + maxCount + " events; it may ask for 1 to " + MAX_PAGE);
        }
        if (from < 0) {
            throw new IllegalArgumentException(
                    "A read of events starts from " + from + "; offsets and sequence numbers are not negative");
        }
    }

    private <T> CompletableFuture<T> unsupported() {
        return CompletableFuture.failedFuture(
                new UnsupportedOperationException(getClass().getName() + " has no event journal"));
    }
}
