package dev.sharding.boot.test.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.spi.EventJournal;
import dev.sharding.spi.NewEvent;
import dev.sharding.spi.PersistedEvent;
import dev.sharding.spi.Recovery;
import dev.sharding.spi.SequenceConflictException;
import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.ShardingStore.Capability;
import dev.sharding.spi.Snapshot;
import dev.sharding.spi.StaleEpochException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What a {@link ShardingStore} that declares {@link Capability#EVENT_JOURNAL} must do with the journals of
 * event-sourced entities, one entity at a time: append and read back, recover from a snapshot, refuse a stale epoch, a
 * sequence number other than the last one and input it cannot keep, each changing nothing; part of
 * {@link ShardingStoreContract}, which extends it, and not run alone. {@link JournalConcurrencyContract} has the
 * tests of many writers at once. Every test is skipped on a store without the capability.
 *
 * <p>Global offsets are unique in the whole store, which the tests may share with others: they compare offsets with
 * each other, never with fixed numbers.
 */
public abstract class EventJournalContract extends EpochFencingContract {

    /**
     * An event of type "evt", version 1, whose payload is a text.
     *
     * @param text the payload's text
     * @param tags its tags
     * @return the event
     */
    protected static NewEvent event(String text, String... tags) {
        return new NewEvent("evt", 1, bytes(text), Set.of(tags));
    }

    /**
     * The payload of an event as text.
     *
     * @param event the event
     * @return its text
     */
    protected static String text(PersistedEvent event) {
        return new String(event.payload(), StandardCharsets.UTF_8);
    }

    /**
     * The payloads of events as texts, in order.
     *
     * @param events the events
     * @return their texts
     */
    protected static List<String> texts(List<PersistedEvent> events) {
        return events.stream().map(EventJournalContract::text).toList();
    }

    /**
     * Appends under epoch 1 in {@link #SHARD}, without ids or snapshot, and waits.
     *
     * @param entityId the entity
     * @param expected its last sequence number
     * @param events the events
     * @return the new last sequence number
     * @throws Exception the append's failure
     */
    protected long append(String entityId, long expected, NewEvent... events) throws Exception {
        return await(store.appendEvents(type, entityId, SHARD, 1, expected, List.of(events), null, null));
    }

    @Test
    void appendedEventsAreReadBackWithTheirNumbersOffsetsTypesTagsAndPayloads() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        String tag = type + "-tag";
        long before = await(store.lastGlobalOffset());
        assertThat(append("a", 0, event("one", tag), new NewEvent("other-type", 3, bytes("two"))))
                .isEqualTo(2);
        assertThat(append("a", 2, event("three", tag, tag + "-more"))).isEqualTo(3);
        List<PersistedEvent> events = await(store.eventsOf(type, "a", 1, 100));
        assertThat(texts(events)).containsExactly("one", "two", "three");
        assertThat(events).extracting(PersistedEvent::sequenceNr).containsExactly(1L, 2L, 3L);
        assertThat(events).extracting(PersistedEvent::globalOffset).isSorted().doesNotHaveDuplicates();
        assertThat(events.get(0).globalOffset()).isGreaterThan(before);
        assertThat(await(store.lastGlobalOffset())).isEqualTo(events.get(2).globalOffset());
        PersistedEvent second = events.get(1);
        assertThat(second.typeName()).isEqualTo(type);
        assertThat(second.entityId()).isEqualTo("a");
        assertThat(second.shardId()).isEqualTo(SHARD);
        assertThat(second.eventType()).isEqualTo("other-type");
        assertThat(second.eventVersion()).isEqualTo(3);
        assertThat(second.tags()).isEmpty();
        assertThat(second.writtenAt()).isNotNull();
        assertThat(events.get(2).tags()).containsExactlyInAnyOrder(tag, tag + "-more");
        assertThat(texts(await(store.eventsOf(type, "a", 2, 1)))).as("a page").containsExactly("two");
        assertThat(await(store.eventsOf(type, "a", 4, 10))).isEmpty();
        assertThat(await(store.eventsOf(type, "nobody", 1, 10))).isEmpty();
        assertThat(texts(await(store.eventsByTag(tag, before, 10)))).containsExactly("one", "three");
        assertThat(texts(await(store.eventsByTag(tag + "-more", before, 10)))).containsExactly("three");
        assertThat(texts(await(store.eventsByTag(tag, events.get(0).globalOffset(), 10))))
                .containsExactly("three");
        assertThat(texts(await(store.eventsBySlice(type, SHARD, SHARD, before, 10))))
                .containsExactly("one", "two", "three");
        assertThat(await(store.eventsBySlice(type, SHARD + 1, SHARD + 5, before, 10)))
                .isEmpty();
        Recovery recovery = await(store.recover(type, "a"));
        assertThat(recovery.snapshot()).isNull();
        assertThat(texts(recovery.events())).containsExactly("one", "two", "three");
        assertThat(recovery.lastSequenceNr()).isEqualTo(3);
        assertThat(recovery.epoch()).isEqualTo(1);
    }

    @Test
    void anEntityNeverAppendedToRecoversEmptyAndItsFirstAppendIsNumberOne() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        Recovery nothing = await(store.recover(type, "new"));
        assertThat(nothing.snapshot()).isNull();
        assertThat(nothing.events()).isEmpty();
        assertThat(nothing.lastSequenceNr()).isZero();
        assertThat(nothing.applied()).isNull();
        assertThat(append("new", 0, event("first"))).isEqualTo(1);
    }

    @Test
    void recoveryStartsFromTheLatestSnapshotWithTheEventsAfterIt() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        append("a", 0, event("e1"), event("e2"));
        await(store.appendEvents(
                type, "a", SHARD, 1, 2, List.of(event("e3")), null, new Snapshot(3, bytes("state at 3"))));
        append("a", 3, event("e4"), event("e5"));
        Recovery recovery = await(store.recover(type, "a"));
        assertThat(recovery.snapshot()).isNotNull();
        assertThat(recovery.snapshot().sequenceNr()).isEqualTo(3);
        assertThat(new String(recovery.snapshot().payload(), StandardCharsets.UTF_8))
                .isEqualTo("state at 3");
        assertThat(texts(recovery.events())).containsExactly("e4", "e5");
        assertThat(recovery.lastSequenceNr()).isEqualTo(5);
        // a later snapshot replaces it; one taken without events is kept too
        await(store.appendEvents(type, "a", SHARD, 1, 5, List.of(), null, new Snapshot(5, bytes("state at 5"))));
        recovery = await(store.recover(type, "a"));
        assertThat(recovery.snapshot().sequenceNr()).isEqualTo(5);
        assertThat(recovery.events()).isEmpty();
        assertThat(recovery.lastSequenceNr()).isEqualTo(5);
        assertThat(texts(await(store.eventsOf(type, "a", 1, 10))))
                .as("the events stay")
                .hasSize(5);
    }

    @Test
    void appliedMessageIdsAreKeptWithEachAppendAndReplacedByTheNext() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        await(store.appendEvents(type, "a", SHARD, 1, 0, List.of(event("e1")), bytes("ids-1"), null));
        assertThat(await(store.recover(type, "a")).applied()).isEqualTo(bytes("ids-1"));
        // a message that made no event still has its id kept
        assertThat(await(store.appendEvents(type, "a", SHARD, 1, 1, List.of(), bytes("ids-2"), null)))
                .isEqualTo(1);
        Recovery recovery = await(store.recover(type, "a"));
        assertThat(recovery.applied()).isEqualTo(bytes("ids-2"));
        assertThat(recovery.lastSequenceNr()).isEqualTo(1);
        assertThatThrownBy(() -> await(store.appendEvents(type, "a", SHARD, 1, 0, List.of(), bytes("ids-x"), null)))
                .isInstanceOf(SequenceConflictException.class);
        await(store.appendEvents(type, "a", SHARD, 1, 1, List.of(event("e2")), null, null));
        assertThat(await(store.recover(type, "a")).applied()).isNull();
    }

    @Test
    void anAppendUnderAStaleEpochIsRefusedAndWritesNothing() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        String tag = type + "-tag";
        await(store.appendEvents(type, "a", SHARD, 5, 0, List.of(event("by 5", tag)), bytes("ids-5"), null));
        assertThatThrownBy(() -> await(store.appendEvents(
                        type,
                        "a",
                        SHARD,
                        4,
                        1,
                        List.of(event("by 4", tag)),
                        bytes("ids-4"),
                        new Snapshot(2, bytes("s")))))
                .isInstanceOf(StaleEpochException.class)
                .hasMessageContaining("epoch 4");
        // the shard allocated again: its previous owner's appends fail, also to entities it never wrote
        assertThat(await(store.nextEpoch(type, 11))).isEqualTo(1);
        await(store.appendEvents(type, "c", 11, 1, 0, List.of(event("c by 1", tag)), null, null));
        assertThat(await(store.nextEpoch(type, 11))).isEqualTo(2);
        assertThatThrownBy(
                        () -> await(store.appendEvents(type, "c", 11, 1, 1, List.of(event("late", tag)), null, null)))
                .as("to an entity it appended to")
                .isInstanceOf(StaleEpochException.class);
        assertThatThrownBy(
                        () -> await(store.appendEvents(type, "b", 11, 1, 0, List.of(event("late", tag)), null, null)))
                .isInstanceOf(StaleEpochException.class);
        assertThat(texts(await(store.eventsByTag(tag, 0, 10)))).containsExactly("by 5", "c by 1");
        Recovery a = await(store.recover(type, "a"));
        assertThat(a.lastSequenceNr()).isEqualTo(1);
        assertThat(a.epoch()).isEqualTo(5);
        assertThat(a.applied()).isEqualTo(bytes("ids-5"));
        assertThat(a.snapshot()).isNull();
        assertThat(await(store.recover(type, "b")).lastSequenceNr()).isZero();
        assertThat(await(store.appendEvents(type, "b", 11, 2, 0, List.of(event("new owner", tag)), null, null)))
                .isEqualTo(1);
    }

    @Test
    void anAppendThatExpectsAnotherLastSequenceNumberIsRefusedAndWritesNothing() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        String tag = type + "-tag";
        append("a", 0, event("e1", tag), event("e2", tag), event("e3", tag));
        for (long expected : new long[] {0, 2, 4, 7}) {
            assertThatThrownBy(() -> await(store.appendEvents(
                            type,
                            "a",
                            SHARD,
                            1,
                            expected,
                            List.of(event("wrong", tag)),
                            bytes("wrong ids"),
                            new Snapshot(expected, bytes("wrong")))))
                    .as("append expecting %d", expected)
                    .isInstanceOf(SequenceConflictException.class)
                    .hasMessageContaining("after sequence number " + expected)
                    .hasMessageContaining("last sequence number is 3")
                    .satisfies(e -> assertThat(((SequenceConflictException) e).actualLastSequenceNr())
                            .isEqualTo(3));
        }
        assertThat(texts(await(store.eventsOf(type, "a", 1, 10)))).containsExactly("e1", "e2", "e3");
        assertThat(texts(await(store.eventsByTag(tag, 0, 10)))).containsExactly("e1", "e2", "e3");
        Recovery recovery = await(store.recover(type, "a"));
        assertThat(recovery.snapshot()).isNull();
        assertThat(recovery.applied()).isNull();
        assertThat(append("a", 3, event("e4"))).isEqualTo(4);
    }

    @Test
    void inputTheJournalCannotKeepFailsClearlyAndChangesNothing() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        String tag = type + "-tag";
        append("a", 0, event("kept", tag));
        long offset = await(store.lastGlobalOffset());
        byte[] huge = new byte[EventJournal.MAX_APPEND_BYTES + 1];
        assertThatThrownBy(() -> append("a", 1, new NewEvent("evt", 1, huge, Set.of(tag))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bytes of payload")
                .hasMessageContaining(String.valueOf(EventJournal.MAX_APPEND_BYTES));
        byte[] half = new byte[EventJournal.MAX_APPEND_BYTES / 2 + 1];
        assertThatThrownBy(() -> await(store.appendEvents(
                        type, "a", SHARD, 1, 1, List.of(new NewEvent("evt", 1, half)), null, new Snapshot(1, half))))
                .as("the snapshot counts too")
                .isInstanceOf(IllegalArgumentException.class);
        NewEvent[] tooMany = Collections.nCopies(EventJournal.MAX_EVENTS_PER_APPEND + 1, event("x"))
                .toArray(NewEvent[]::new);
        assertThatThrownBy(() -> append("a", 1, tooMany))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most " + EventJournal.MAX_EVENTS_PER_APPEND);
        assertThatThrownBy(() -> await(store.appendEvents(
                        type, "a", SHARD, 1, 1, List.of(event("x")), null, new Snapshot(3, bytes("s")))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("past the append's last event (2)");
        assertThatThrownBy(() -> append("a", -1, event("x"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> event("x", "tab\there"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("U+0009");
        assertThatThrownBy(() -> new NewEvent("", 1, bytes("x"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NewEvent("t".repeat(NewEvent.MAX_NAME_LENGTH + 1), 1, bytes("x")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NewEvent("evt", -1, bytes("x"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> await(store.eventsByTag(tag, 0, 0))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> await(store.eventsByTag(tag, 0, EventJournal.MAX_PAGE + 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> await(store.eventsBySlice(type, 3, 2, 0, 10)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> await(store.eventsOf(type, "a", -1, 10))).isInstanceOf(IllegalArgumentException.class);
        assertThat(await(store.lastGlobalOffset())).as("no offset taken").isEqualTo(offset);
        assertThat(texts(await(store.eventsOf(type, "a", 1, 10)))).containsExactly("kept");
        assertThat(await(store.recover(type, "a")).snapshot()).isNull();
        assertThat(append("a", 1, new NewEvent("evt", 1, new byte[EventJournal.MAX_APPEND_BYTES])))
                .as("the largest append allowed")
                .isEqualTo(2);
        assertThat(await(store.eventsOf(type, "a", 2, 1)).get(0).payload()).hasSize(EventJournal.MAX_APPEND_BYTES);
    }

    @Test
    void theStoreKeepsItsOwnCopiesOfWhatIsAppended() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        byte[] payload = bytes("original");
        byte[] snapshot = bytes("snapshot");
        byte[] ids = bytes("ids");
        var appended = store.appendEvents(
                type, "a", SHARD, 1, 0, List.of(new NewEvent("evt", 1, payload)), ids, new Snapshot(1, snapshot));
        payload[0] = 'X';
        snapshot[0] = 'X';
        ids[0] = 'X';
        await(appended);
        Recovery recovery = await(store.recover(type, "a"));
        assertThat(recovery.snapshot().payload()).isEqualTo(bytes("snapshot"));
        assertThat(recovery.applied()).isEqualTo(bytes("ids"));
        assertThat(texts(await(store.eventsOf(type, "a", 1, 1)))).containsExactly("original");
    }

    @Test
    void clearingTheShardingDataKeepsTheJournals() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        await(store.appendEvents(
                type, "a", SHARD, 1, 0, List.of(event("kept", type + "-tag")), null, new Snapshot(1, bytes("s"))));
        await(store.clearShardingData());
        Recovery recovery = await(store.recover(type, "a"));
        assertThat(recovery.lastSequenceNr()).isEqualTo(1);
        assertThat(recovery.snapshot()).isNotNull();
        assertThat(texts(await(store.eventsByTag(type + "-tag", 0, 10)))).containsExactly("kept");
    }

    /**
     * An entity's journal head is its state row; were the row deleted, the journal still numbers on from its last
     * event, so no sequence number is ever used twice.
     */
    @Test
    void anEntityWhoseHeadRowWasDeletedNumbersOnFromItsLastEvent() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        append("a", 0, event("e1"), event("e2"));
        await(store.delete(type, "a", SHARD, 1));
        assertThat(await(store.recover(type, "a")).lastSequenceNr()).isEqualTo(2);
        assertThatThrownBy(() -> append("a", 0, event("again"))).isInstanceOf(SequenceConflictException.class);
        assertThat(append("a", 2, event("e3"))).isEqualTo(3);
        assertThat(texts(await(store.eventsOf(type, "a", 1, 10)))).containsExactly("e1", "e2", "e3");
    }

    /**
     * Several appends to one entity queued together are applied in their order: each expects the one before it.
     *
     * @param entityId the entity
     * @param count how many appends of one event
     * @return the events read back
     * @throws Exception on failure
     */
    protected List<PersistedEvent> appendInOneGo(String entityId, int count) throws Exception {
        List<java.util.concurrent.CompletableFuture<Long>> appends = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            appends.add(store.appendEvents(type, entityId, SHARD, 1, i, List.of(event("e" + (i + 1))), null, null));
        }
        for (int i = 0; i < count; i++) {
            assertThat(await(appends.get(i))).isEqualTo(i + 1L);
        }
        return await(store.eventsOf(type, entityId, 1, EventJournal.MAX_PAGE));
    }

    @Test
    void appendsOfOneEntityQueuedTogetherAreAppliedInTheirOrder() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        List<PersistedEvent> events = appendInOneGo("ordered", 30);
        assertThat(events).extracting(PersistedEvent::sequenceNr).containsExactlyElementsOf(sequence(30));
        assertThat(events).extracting(PersistedEvent::globalOffset).isSorted().doesNotHaveDuplicates();
    }

    /**
     * The numbers from 1 to n.
     *
     * @param n the last
     * @return 1..n
     */
    protected static List<Long> sequence(long n) {
        List<Long> numbers = new ArrayList<>();
        for (long i = 1; i <= n; i++) {
            numbers.add(i);
        }
        return numbers;
    }

    /**
     * The ids of the entity and sequence number of events, as "id#n".
     *
     * @param events the events
     * @return their keys
     */
    protected static List<String> keys(List<PersistedEvent> events) {
        return events.stream().map(e -> e.entityId() + "#" + e.sequenceNr()).toList();
    }
}
