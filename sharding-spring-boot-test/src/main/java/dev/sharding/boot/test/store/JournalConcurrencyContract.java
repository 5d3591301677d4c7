package dev.sharding.boot.test.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sharding.StoreOutcomeUnknownException;
import dev.sharding.spi.EventJournal;
import dev.sharding.spi.PersistedEvent;
import dev.sharding.spi.SequenceConflictException;
import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.ShardingStore.Capability;
import dev.sharding.spi.ShardingStore.StoredState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * What a {@link ShardingStore} that declares {@link Capability#EVENT_JOURNAL} must do with many writers at once:
 * group-commit appends of many entities with state writes, keep one entity's sequence numbers free of gaps and
 * duplicates when two nodes race to append, leave nothing of a failed transaction, and (the gap guarantee) never let
 * a reader that pages by global offset skip an event that committed late; part of {@link ShardingStoreContract},
 * which extends it, and not run alone.
 */
public abstract class JournalConcurrencyContract extends EventJournalContract {

    @Test
    void appendsOfManyEntitiesAndStateWritesMadeAtOnceAreAllApplied() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        int entities = 60;
        List<CompletableFuture<Long>> appends = new ArrayList<>();
        List<CompletableFuture<StoredState>> writes = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < entities; i++) {
                appends.add(store.appendEvents(
                        type, "es-" + i, i % 4, 1, round, List.of(event("es-" + i + "#" + (round + 1))), null, null));
                writes.add(store.write(type, "state-" + i, i % 4, 1, bytes("s" + round)));
            }
        }
        for (CompletableFuture<Long> a : appends) {
            await(a);
        }
        for (CompletableFuture<StoredState> w : writes) {
            await(w);
        }
        List<PersistedEvent> all = new ArrayList<>();
        for (int i = 0; i < entities; i++) {
            List<PersistedEvent> mine = await(store.eventsOf(type, "es-" + i, 1, 10));
            assertThat(mine).extracting(PersistedEvent::sequenceNr).containsExactly(1L, 2L, 3L);
            assertThat(mine).extracting(PersistedEvent::globalOffset).isSorted();
            assertThat(await(store.read(type, "state-" + i)).orElseThrow().version())
                    .isEqualTo(3);
            all.addAll(mine);
        }
        assertThat(all).extracting(PersistedEvent::globalOffset).doesNotHaveDuplicates();
        assertThat(keys(pageAll(p -> p.reader.eventsBySlice(type, 0, 3, p.after, 50))))
                .as("the type's events by slice")
                .containsExactlyInAnyOrderElementsOf(keys(all));
    }

    @Test
    void twoNodesRacingToAppendToOneEntityNeverLeaveAGapOrADuplicate() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        ShardingStore peer = track(createPeer(store));
        int appendsPerNode = 40;
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        List<CompletableFuture<Integer>> nodes = new ArrayList<>();
        for (int n = 0; n < 2; n++) {
            ShardingStore node = n == 0 ? store : peer;
            String name = n == 0 ? "first" : "second";
            nodes.add(CompletableFuture.supplyAsync(() -> {
                int conflicts = 0;
                long last = node.recover(type, "raced").join().lastSequenceNr();
                for (int done = 0; done < appendsPerNode; ) {
                    String text = name + "-" + done;
                    try {
                        last = node.appendEvents(type, "raced", SHARD, 1, last, List.of(event(text)), null, null)
                                .join();
                        acknowledged.add(text);
                        done++;
                    } catch (java.util.concurrent.CompletionException e) {
                        if (!(e.getCause() instanceof SequenceConflictException conflict)) {
                            throw e;
                        }
                        conflicts++;
                        last = conflict.actualLastSequenceNr();
                    }
                }
                return conflicts;
            }));
        }
        for (CompletableFuture<Integer> node : nodes) {
            await(node);
        }
        List<PersistedEvent> events = await(store.eventsOf(type, "raced", 1, EventJournal.MAX_PAGE));
        assertThat(events)
                .extracting(PersistedEvent::sequenceNr)
                .as("numbered 1..n, no gap, no duplicate")
                .containsExactlyElementsOf(sequence(2L * appendsPerNode));
        assertThat(texts(events)).containsExactlyInAnyOrderElementsOf(acknowledged);
        assertThat(events).extracting(PersistedEvent::globalOffset).isSorted().doesNotHaveDuplicates();
        assertThat(await(peer.recover(type, "raced")).lastSequenceNr()).isEqualTo(2L * appendsPerNode);
    }

    /**
     * A transaction that fails leaves nothing: no event, no snapshot, no ids, and no offset taken, so the next append
     * takes the offset after the last one committed (an offset a failed transaction took would otherwise be a hole a
     * reader could not tell from an event yet to commit).
     */
    @Test
    void aFailedTransactionLeavesNothingOfItsAppendsNorAHoleInTheOffsets() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        assumeTrue(canInjectFaults(), "this store cannot be made to fail");
        String tag = type + "-tag";
        append("a", 0, event("before", tag));
        long offset = await(store.lastGlobalOffset());
        injectFault(StoreFault.COMMIT_FAILS);
        List<CompletableFuture<Long>> lost = List.of(
                store.appendEvents(type, "a", SHARD, 1, 1, List.of(event("lost-a", tag)), bytes("ids"), null),
                store.appendEvents(
                        type,
                        "b",
                        SHARD,
                        1,
                        0,
                        List.of(event("lost-b1", tag), event("lost-b2", tag)),
                        null,
                        new dev.sharding.spi.Snapshot(2, bytes("s"))));
        for (CompletableFuture<Long> f : lost) {
            assertThat(failureOf(f)).isInstanceOf(StoreOutcomeUnknownException.class);
        }
        injectFault(null);
        assertThat(await(store.lastGlobalOffset())).isEqualTo(offset);
        assertThat(texts(await(store.eventsByTag(tag, 0, 10)))).containsExactly("before");
        assertThat(await(store.recover(type, "a")).applied()).isNull();
        assertThat(await(store.recover(type, "b")).snapshot()).isNull();
        assertThat(await(store.recover(type, "b")).lastSequenceNr()).isZero();
        append("b", 0, event("after", tag));
        List<PersistedEvent> after = await(store.eventsByTag(tag, 0, 10));
        assertThat(texts(after)).containsExactly("before", "after");
        assertThat(after.get(1).globalOffset())
                .as("the offset after the last committed")
                .isEqualTo(offset + 1);
    }

    /**
     * An append whose commit got no answer is answered by the head row it wrote, as a state write is by its row: its
     * last sequence number shows the transaction was committed. An append without events leaves its row as it was, so
     * nothing tells, and its outcome is unknown. Either way it is never stored twice: the same append tried again
     * expects a last sequence number that is no longer the last.
     */
    @Test
    void anAppendWhoseCommitGotNoAnswerIsAnsweredByItsHeadRowAndNeverStoredTwice() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        assumeTrue(canInjectFaults(), "this store cannot be made to fail");
        append("a", 0, event("before"));
        injectFault(StoreFault.COMMIT_LOST_AFTER_APPLYING);
        assertThat(await(store.appendEvents(type, "a", SHARD, 1, 1, List.of(event("lost")), null, null)))
                .as("answered as stored: the head row its transaction wrote shows it was committed")
                .isEqualTo(2);
        assertThat(failureOf(store.appendEvents(type, "a", SHARD, 1, 2, List.of(), bytes("ids"), null)))
                .as("no event, so no row tells")
                .isInstanceOf(StoreOutcomeUnknownException.class)
                .hasMessageContaining("may have been stored or not");
        injectFault(null);
        assertThat(failureOf(store.appendEvents(type, "a", SHARD, 1, 1, List.of(event("lost")), null, null)))
                .as("the same append again")
                .isInstanceOf(SequenceConflictException.class);
        assertThat(texts(await(store.eventsOf(type, "a", 1, 10)))).containsExactly("before", "lost");
        assertThat(await(store.recover(type, "a")).applied()).isEqualTo(bytes("ids"));
    }

    /**
     * The gap guarantee. Writers on several nodes (each its own store, so its own transactions) append to many
     * entities at once, with one tag, while one reader pages through the tag and another through a slice, each asking
     * for the events after the last offset it got. Every event acknowledged must be seen by each reader whose tag or
     * slice it belongs to, exactly once, in rising offset order; a store that let a late commit take an offset below
     * one a reader had passed would fail here.
     */
    @Test
    void readersPagingByTagAndSliceWhileManyNodesAppendSeeEveryEventOnceInOffsetOrder() throws Exception {
        assumeCapable(Capability.EVENT_JOURNAL);
        int nodes = 4;
        int entitiesPerNode = 6;
        int rounds = 15;
        String tag = type + "-all";
        List<ShardingStore> writers = new ArrayList<>();
        writers.add(store);
        for (int n = 1; n < nodes; n++) {
            writers.add(track(createPeer(store)));
        }
        Map<String, Integer> acknowledged = new ConcurrentHashMap<>();
        AtomicBoolean writing = new AtomicBoolean(true);
        Paging byTag = new Paging(store, p -> p.reader.eventsByTag(tag, p.after, 7));
        // shards 0 to 3 of 8: about half of the events
        Paging bySlice = new Paging(track(createPeer(store)), p -> p.reader.eventsBySlice(type, 0, 3, p.after, 5));
        CompletableFuture<Void> tagReader = CompletableFuture.runAsync(() -> byTag.follow(writing));
        CompletableFuture<Void> sliceReader = CompletableFuture.runAsync(() -> bySlice.follow(writing));
        List<CompletableFuture<Void>> appenders = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
            ShardingStore node = writers.get(n);
            int first = n * entitiesPerNode;
            appenders.add(CompletableFuture.runAsync(() -> {
                long[] last = new long[entitiesPerNode];
                for (int round = 0; round < rounds; round++) {
                    List<CompletableFuture<Long>> made = new ArrayList<>();
                    for (int e = 0; e < entitiesPerNode; e++) {
                        String id = "e" + (first + e);
                        List<dev.sharding.spi.NewEvent> events = (round + e) % 3 == 0
                                ? List.of(event(id, tag), event(id, tag))
                                : List.of(event(id, tag));
                        made.add(node.appendEvents(type, id, (first + e) % 8, 1, last[e], events, null, null));
                    }
                    for (int e = 0; e < entitiesPerNode; e++) {
                        long now = made.get(e).join();
                        for (long seq = last[e] + 1; seq <= now; seq++) {
                            acknowledged.put("e" + (first + e) + "#" + seq, (first + e) % 8);
                        }
                        last[e] = now;
                    }
                }
            }));
        }
        try {
            for (CompletableFuture<Void> appender : appenders) {
                await(appender);
            }
        } finally {
            writing.set(false);
        }
        await(tagReader);
        await(sliceReader);
        assertThat(keys(byTag.seen))
                .as("the tag's events as the paging reader saw them")
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(acknowledged.keySet());
        List<String> inSlice = acknowledged.entrySet().stream()
                .filter(e -> e.getValue() <= 3)
                .map(Map.Entry::getKey)
                .toList();
        assertThat(keys(bySlice.seen))
                .as("the slice's events as the paging reader saw them")
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(inSlice);
        assertThat(keys(pageAll(p -> p.reader.eventsByTag(tag, p.after, 1000))))
                .as("the same events, in the same order, read after the writers stopped")
                .containsExactlyElementsOf(keys(byTag.seen));
    }

    /**
     * Every event a page function finds, read page after page from offset 0 on a store with no writer.
     *
     * @param next reads the page after {@link Paging#after}
     * @return the events
     */
    protected List<PersistedEvent> pageAll(
            java.util.function.Function<Paging, CompletableFuture<List<PersistedEvent>>> next) {
        Paging paging = new Paging(store, next);
        paging.follow(new AtomicBoolean());
        return paging.seen;
    }

    /** A reader that follows a tag or a slice, page by page, each page after the last offset it got. */
    protected static final class Paging {

        /** The store it reads. */
        final ShardingStore reader;

        /** Reads the page after {@link #after}. */
        private final java.util.function.Function<Paging, CompletableFuture<List<PersistedEvent>>> next;

        /** The last offset it got. */
        long after;

        /** What it got, in order. */
        final List<PersistedEvent> seen = new ArrayList<>();

        Paging(
                ShardingStore reader,
                java.util.function.Function<Paging, CompletableFuture<List<PersistedEvent>>> next) {
            this.reader = reader;
            this.next = next;
        }

        /**
         * Reads pages until one comes back empty although it was asked for after the writers had stopped.
         *
         * @param writing true while writers append
         */
        void follow(AtomicBoolean writing) {
            while (true) {
                boolean finished = !writing.get();
                List<PersistedEvent> page = next.apply(this).join();
                for (PersistedEvent e : page) {
                    if (e.globalOffset() <= after) {
                        throw new AssertionError("A page after offset " + after + " returned offset " + e.globalOffset()
                                + " (" + e.entityId() + "#" + e.sequenceNr() + ")");
                    }
                    seen.add(e);
                    after = e.globalOffset();
                }
                if (page.isEmpty()) {
                    if (finished) {
                        return;
                    }
                    // a projection's poll interval, so that the reader does not spin while writers catch up
                    java.util.concurrent.locks.LockSupport.parkNanos(
                            Duration.ofMillis(1).toNanos());
                }
            }
        }
    }
}
