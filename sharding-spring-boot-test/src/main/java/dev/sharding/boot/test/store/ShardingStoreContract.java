package dev.sharding.boot.test.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sharding.ShardingException;
import dev.sharding.StoreOutcomeUnknownException;
import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.ShardingStore.Capability;
import dev.sharding.spi.ShardingStore.StoredState;
import dev.sharding.spi.StaleEpochException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ShardingStore} must do, with {@link dev.sharding.store.InMemoryShardingStore}'s
 * semantics as the reference. An
 * implementation's test extends this class and says how to make a store; tests run one after the other, each with
 * entity types of its own, so the database may be shared by all of them. Stores in a database also say how to
 * break it ({@link #injectFault}), and get the failure tests. The coordinator lease and the store id are in
 * {@link CoordinatorLeaseContract}, whose tests every subclass runs too. The tests of an optional feature run on a
 * store that declares its {@link Capability}, and call nothing of it on one that does not, as the runtime does not.
 *
 * @see EpochFuzzer
 */
public abstract class ShardingStoreContract extends CoordinatorLeaseContract {

    @Test
    void aStoreDeclaresTheSameCapabilitiesEveryTimeAndOnEveryNode() {
        Set<Capability> declared = store.capabilities();
        assertThat(store.capabilities()).isEqualTo(declared);
        assertThat(track(createPeer(store)).capabilities()).isEqualTo(declared);
    }

    @Test
    void readOfAnEntityNeverWrittenIsEmpty() throws Exception {
        assertThat(await(store.read(type, "nobody"))).isEmpty();
    }

    @Test
    void writeThenReadRoundTripsStateVersionAndEpoch() throws Exception {
        byte[] everyByte = new byte[256];
        for (int i = 0; i < everyByte.length; i++) {
            everyByte[i] = (byte) i;
        }
        byte[] large = new byte[200_000];
        new java.util.Random(7).nextBytes(large);
        for (byte[] state : List.of(new byte[0], everyByte, large)) {
            String id = "round-trip-" + state.length;
            StoredState written = await(store.write(type, id, SHARD, 3, state));
            assertThat(written.version()).isEqualTo(1);
            assertThat(written.epoch()).isEqualTo(3);
            assertThat(written.state()).isEqualTo(state);
            StoredState read = await(store.read(type, id)).orElseThrow();
            assertThat(read.state()).isEqualTo(state);
            assertThat(read.version()).isEqualTo(1);
            assertThat(read.epoch()).isEqualTo(3);
        }
    }

    @Test
    void appliedMessageIdsAreWrittenAndReadWithTheStateAndReplacedByEachWrite() throws Exception {
        assumeCapable(Capability.APPLIED_MESSAGES);
        assertThat(await(store.read(type, "a"))).isEmpty();
        StoredState first = await(store.write(type, "a", SHARD, 1, bytes("one"), bytes("ids-1")));
        assertThat(first.applied()).isEqualTo(bytes("ids-1"));
        StoredState read = await(store.read(type, "a")).orElseThrow();
        assertThat(text(read)).isEqualTo("one");
        assertThat(read.applied()).isEqualTo(bytes("ids-1"));
        // many writes at once, committed together: the last one's ids are the row's
        List<CompletableFuture<StoredState>> writes = new ArrayList<>();
        for (int i = 2; i <= 20; i++) {
            writes.add(store.write(type, "a", SHARD, 1, bytes("v" + i), i % 2 == 0 ? bytes("ids-" + i) : null));
        }
        writes.add(store.write(type, "a", SHARD, 1, bytes("v21"), bytes("ids-21")));
        for (CompletableFuture<StoredState> w : writes) {
            await(w);
        }
        read = await(store.read(type, "a")).orElseThrow();
        assertThat(text(read)).isEqualTo("v21");
        assertThat(read.applied()).isEqualTo(bytes("ids-21"));
        assertThat(read.version()).isEqualTo(21);
        // a write without ids stores none; a row may keep ids with an empty state
        await(store.write(type, "a", SHARD, 1, bytes("v22")));
        assertThat(await(store.read(type, "a")).orElseThrow().applied()).isNull();
        await(store.write(type, "b", SHARD, 1, new byte[0], bytes("only-ids")));
        StoredState onlyIds = await(store.read(type, "b")).orElseThrow();
        assertThat(onlyIds.state()).isEmpty();
        assertThat(onlyIds.applied()).isEqualTo(bytes("only-ids"));
    }

    @Test
    void aStaleWriteWithAppliedIdsChangesNeitherTheStateNorTheIds() throws Exception {
        assumeCapable(Capability.APPLIED_MESSAGES);
        await(store.write(type, "a", SHARD, 5, bytes("kept"), bytes("kept-ids")));
        assertThatThrownBy(() -> await(store.write(type, "a", SHARD, 4, bytes("stale"), bytes("stale-ids"))))
                .isInstanceOf(StaleEpochException.class);
        StoredState read = await(store.read(type, "a")).orElseThrow();
        assertThat(text(read)).isEqualTo("kept");
        assertThat(read.applied()).isEqualTo(bytes("kept-ids"));
    }

    @Test
    void versionCountsTheWritesAndTypesAreSeparate() throws Exception {
        for (int i = 1; i <= 3; i++) {
            assertThat(await(store.write(type, "a", SHARD, 1, bytes("v" + i))).version())
                    .isEqualTo(i);
        }
        await(store.write(type + "-other", "a", SHARD, 1, bytes("other")));
        assertThat(text(await(store.read(type, "a")).orElseThrow())).isEqualTo("v3");
        assertThat(await(store.read(type, "a")).orElseThrow().version()).isEqualTo(3);
        assertThat(text(await(store.read(type + "-other", "a")).orElseThrow())).isEqualTo("other");
    }

    @Test
    void theStoreKeepsItsOwnCopyOfAWrittenState() throws Exception {
        byte[] state = bytes("original");
        CompletableFuture<StoredState> write = store.write(type, "a", SHARD, 1, state);
        state[0] = 'X';
        await(write);
        assertThat(text(await(store.read(type, "a")).orElseThrow())).isEqualTo("original");
    }

    @Test
    void writesOfOneEntityAreAppliedInTheOrderTheyWereMade() throws Exception {
        List<CompletableFuture<StoredState>> writes = new ArrayList<>();
        for (int i = 1; i <= 50; i++) {
            writes.add(store.write(type, "ordered", SHARD, 1, bytes("v" + i)));
        }
        for (int i = 0; i < writes.size(); i++) {
            assertThat(await(writes.get(i)).version()).isEqualTo(i + 1);
        }
        assertThat(text(await(store.read(type, "ordered")).orElseThrow())).isEqualTo("v50");
    }

    @Test
    void deleteRemovesTheStateAndTheNextWriteStartsAtVersionOne() throws Exception {
        await(store.write(type, "a", SHARD, 1, bytes("one")));
        await(store.write(type, "a", SHARD, 1, bytes("two")));
        await(store.delete(type, "a", SHARD, 1));
        assertThat(await(store.read(type, "a"))).isEmpty();
        await(store.delete(type, "never-written", SHARD, 1));
        StoredState again = await(store.write(type, "a", SHARD, 1, bytes("three")));
        assertThat(again.version()).isEqualTo(1);
    }

    @Test
    void aWriteUnderALowerEpochIsRefusedAndChangesNothing() throws Exception {
        await(store.write(type, "a", SHARD, 5, bytes("by epoch 5")));
        assertThatThrownBy(() -> await(store.write(type, "a", SHARD, 4, bytes("by epoch 4"))))
                .isInstanceOf(StaleEpochException.class)
                .hasMessageContaining("epoch 4")
                .hasMessageContaining("5");
        StoredState row = await(store.read(type, "a")).orElseThrow();
        assertThat(text(row)).isEqualTo("by epoch 5");
        assertThat(row.version()).isEqualTo(1);
        assertThat(row.epoch()).isEqualTo(5);
    }

    @Test
    void aDeleteUnderALowerEpochIsRefusedAndKeepsTheRow() throws Exception {
        await(store.write(type, "a", SHARD, 5, bytes("kept")));
        assertThatThrownBy(() -> await(store.delete(type, "a", SHARD, 2))).isInstanceOf(StaleEpochException.class);
        assertThat(text(await(store.read(type, "a")).orElseThrow())).isEqualTo("kept");
    }

    @Test
    void anEqualEpochIsAcceptedAndAHigherOneFencesTheLowerOut() throws Exception {
        await(store.write(type, "a", SHARD, 2, bytes("first")));
        assertThat(await(store.write(type, "a", SHARD, 2, bytes("same epoch"))).version())
                .isEqualTo(2);
        StoredState higher = await(store.write(type, "a", SHARD, 3, bytes("new owner")));
        assertThat(higher.version()).isEqualTo(3);
        assertThat(higher.epoch()).isEqualTo(3);
        assertThatThrownBy(() -> await(store.write(type, "a", SHARD, 2, bytes("old owner"))))
                .isInstanceOf(StaleEpochException.class);
        assertThat(text(await(store.read(type, "a")).orElseThrow())).isEqualTo("new owner");
    }

    @Test
    void aStaleWriteFailsAloneAmongWritesMadeAtTheSameTime() throws Exception {
        await(store.write(type, "a", SHARD, 5, bytes("a5")));
        CompletableFuture<StoredState> stale = store.write(type, "a", SHARD, 3, bytes("a3"));
        CompletableFuture<StoredState> b = store.write(type, "b", SHARD, 1, bytes("b1"));
        CompletableFuture<Void> remembered = store.updateRemembered(type, 1, List.of("b"), List.of());
        CompletableFuture<StoredState> sameEpoch = store.write(type, "a", SHARD, 5, bytes("a5 again"));
        assertThatThrownBy(() -> await(stale)).isInstanceOf(StaleEpochException.class);
        assertThat(await(b).version()).isEqualTo(1);
        await(remembered);
        assertThat(await(sameEpoch).version()).isEqualTo(2);
        assertThat(text(await(store.read(type, "a")).orElseThrow())).isEqualTo("a5 again");
    }

    @Test
    void firstWritesOfOneEntityFromTwoNodesAtOnceLeaveOneRowWithTheHigherEpoch() throws Exception {
        ShardingStore peer = track(createPeer(store));
        for (int i = 0; i < 40; i++) {
            String id = "raced-" + i;
            // the lower epoch goes first on even ids, second on odd ones
            CompletableFuture<StoredState> low;
            CompletableFuture<StoredState> high;
            if (i % 2 == 0) {
                low = store.write(type, id, SHARD, 1, bytes("low"));
                high = peer.write(type, id, SHARD, 2, bytes("high"));
            } else {
                high = peer.write(type, id, SHARD, 2, bytes("high"));
                low = store.write(type, id, SHARD, 1, bytes("low"));
            }
            StoredState won = await(high);
            StoredState row = await(store.read(type, id)).orElseThrow();
            assertThat(text(row)).as("row of %s", id).isEqualTo("high");
            assertThat(row.epoch()).isEqualTo(2);
            Throwable lowFailure = failureOf(low);
            if (lowFailure == null) {
                assertThat(await(low).version())
                        .as("the low write of %s came first", id)
                        .isEqualTo(1);
                assertThat(won.version()).isEqualTo(2);
            } else {
                assertThat(lowFailure).isInstanceOf(StaleEpochException.class);
                assertThat(won.version()).isEqualTo(1);
            }
            assertThat(row.version()).isEqualTo(won.version());
        }
    }

    @Test
    void manyThreadsWritingManyEntitiesLoseNothing() throws Exception {
        int threads = 16;
        int idsPerThread = 25;
        List<CompletableFuture<Void>> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            writers.add(CompletableFuture.runAsync(() -> {
                for (int round = 1; round <= 3; round++) {
                    List<CompletableFuture<StoredState>> writes = new ArrayList<>();
                    for (int i = 0; i < idsPerThread; i++) {
                        writes.add(
                                store.write(type, thread + "-" + i, SHARD, 1, bytes(thread + "-" + i + "-" + round)));
                    }
                    writes.forEach(CompletableFuture::join);
                }
            }));
        }
        for (CompletableFuture<Void> writer : writers) {
            await(writer);
        }
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < idsPerThread; i++) {
                StoredState row = await(store.read(type, t + "-" + i)).orElseThrow();
                assertThat(text(row)).isEqualTo(t + "-" + i + "-3");
                assertThat(row.version()).isEqualTo(3);
            }
        }
    }

    @Test
    void twoNodesWritingUnderRisingEpochsKeepOnlyTheAcceptedHistory() throws Exception {
        ShardingStore peer = track(createPeer(store));
        new EpochFuzzer(store, peer, type, 24).run(8, 250, type.hashCode());
    }

    @Test
    void epochsStartAtOneAndRisePerShard() throws Exception {
        assertThat(await(store.nextEpoch(type, 7))).isEqualTo(1);
        assertThat(await(store.nextEpoch(type, 7))).isEqualTo(2);
        assertThat(await(store.nextEpoch(type, 8))).isEqualTo(1);
        assertThat(await(store.nextEpoch(type + "-other", 7))).isEqualTo(1);
        assertThat(await(store.nextEpoch(type, 7))).isEqualTo(3);
    }

    @Test
    void currentEpochsAreTheLastOnesHandedOutForEachShardOfTheType() throws Exception {
        assumeCapable(Capability.CURRENT_EPOCHS);
        assertThat(await(store.currentEpochs(type))).isEmpty();
        await(store.nextEpoch(type, 1));
        await(store.nextEpoch(type, 1));
        await(store.nextEpoch(type, 2));
        await(store.nextEpoch(type + "-other", 3));
        assertThat(await(store.currentEpochs(type))).isEqualTo(Map.of(1, 2L, 2, 1L));
        assertThat(await(track(createPeer(store)).currentEpochs(type)))
                .as("as every node of the database reads them")
                .isEqualTo(Map.of(1, 2L, 2, 1L));
    }

    @Test
    void concurrentEpochRequestsFromTwoNodesGetDistinctRisingEpochs() throws Exception {
        ShardingStore peer = track(createPeer(store));
        int threads = 8;
        int perThread = 25;
        List<CompletableFuture<List<Long>>> requesters = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            ShardingStore node = t % 2 == 0 ? store : peer;
            requesters.add(CompletableFuture.supplyAsync(() -> {
                List<Long> got = new ArrayList<>();
                for (int i = 0; i < perThread; i++) {
                    got.add(node.nextEpoch(type, 3).join());
                }
                return got;
            }));
        }
        List<Long> all = new ArrayList<>();
        for (CompletableFuture<List<Long>> requester : requesters) {
            List<Long> got = await(requester);
            assertThat(got).as("epochs one thread got, in order").isSorted().doesNotHaveDuplicates();
            all.addAll(got);
        }
        assertThat(all).hasSize(threads * perThread).doesNotHaveDuplicates();
        assertThat(Collections.max(all)).isEqualTo(threads * perThread);
    }

    @Test
    void rememberedEntitiesAreAddedRemovedAndListedPerShard() throws Exception {
        assertThat(await(store.remembered(type, 1))).isEmpty();
        assertThat(await(store.shardsWithRemembered(type))).isEmpty();
        await(store.updateRemembered(type, 1, List.of("a", "b", "c"), List.of()));
        await(store.updateRemembered(type, 2, List.of("x"), List.of()));
        await(store.updateRemembered(type + "-other", 5, List.of("a"), List.of()));
        await(store.updateRemembered(type, 1, List.of("d", "a"), List.of("b")));
        assertThat(await(store.remembered(type, 1))).containsExactlyInAnyOrder("a", "c", "d");
        assertThat(await(store.shardsWithRemembered(type))).containsExactlyInAnyOrder(1, 2);
        // an id both started and stopped in one update ends stopped
        await(store.updateRemembered(type, 2, List.of("y"), List.of("x", "y")));
        assertThat(await(store.remembered(type, 2))).isEmpty();
        assertThat(await(store.shardsWithRemembered(type))).containsExactly(1);
        assertThat(await(store.shardsWithRemembered(type + "-other"))).containsExactly(5);
    }

    @Test
    void rememberedEntitiesOfAStaleOwnerAreRefusedAndTheNewOwnersSetStays() throws Exception {
        int shard = 11;
        long old = await(store.nextEpoch(type, shard));
        await(store.updateRemembered(type, shard, old, List.of("a", "b"), List.of()));
        long current = await(store.nextEpoch(type, shard));
        await(store.updateRemembered(type, shard, current, List.of("c"), List.of("a")));
        // the old owner's late flush, in one batch with the new owner's next change
        CompletableFuture<Void> late = store.updateRemembered(type, shard, old, List.of("a", "stale"), List.of("c"));
        CompletableFuture<Void> next = store.updateRemembered(type, shard, current, List.of("d"), List.of());
        assertThatThrownBy(() -> await(late)).isInstanceOf(StaleEpochException.class);
        await(next);
        assertThat(await(store.remembered(type, shard))).containsExactlyInAnyOrder("b", "c", "d");
    }

    @Test
    void writesUnderAnEpochOlderThanTheShardsCurrentOneAreRefusedEvenOnRowsNeverWritten() throws Exception {
        assertThat(await(store.nextEpoch(type, 9))).isEqualTo(1);
        await(store.write(type, "old", 9, 1, bytes("by the first owner")));
        assertThat(await(store.nextEpoch(type, 9))).isEqualTo(2);
        // the first owner has not noticed the move: neither its rows nor new ones take its writes any more
        assertThatThrownBy(() -> await(store.write(type, "old", 9, 1, bytes("late"))))
                .isInstanceOf(StaleEpochException.class);
        assertThatThrownBy(() -> await(store.write(type, "new", 9, 1, bytes("late"))))
                .isInstanceOf(StaleEpochException.class);
        assertThatThrownBy(() -> await(store.delete(type, "old", 9, 1))).isInstanceOf(StaleEpochException.class);
        assertThat(text(await(store.read(type, "old")).orElseThrow())).isEqualTo("by the first owner");
        assertThat(await(store.read(type, "new"))).isEmpty();
        // the new owner writes; other shards are not fenced by this one's epoch
        assertThat(await(store.write(type, "old", 9, 2, bytes("by the new owner")))
                        .epoch())
                .isEqualTo(2);
        await(store.write(type, "elsewhere", 10, 1, bytes("other shard")));
    }

    @Test
    void clearingTheShardingDataKeepsEntityStateAndFollowsEarlierUpdates() throws Exception {
        await(store.write(type, "a", SHARD, 4, bytes("state")));
        await(store.nextEpoch(type, 1));
        await(store.nextEpoch(type, 1));
        CompletableFuture<Void> before = store.updateRemembered(type, 1, List.of("a", "b"), List.of());
        CompletableFuture<Long> clear = store.clearShardingData();
        CompletableFuture<Void> after = store.updateRemembered(type, 2, List.of("c"), List.of());
        await(before);
        // other tests' types may have remembered entities in the same database: they are deleted too
        assertThat(await(clear)).as("remembered ids deleted").isGreaterThanOrEqualTo(2);
        await(after);
        assertThat(await(store.remembered(type, 1))).isEmpty();
        assertThat(await(store.remembered(type, 2))).containsExactly("c");
        assertThat(await(store.nextEpoch(type, 1)))
                .as("the shard epochs are kept")
                .isEqualTo(3);
        StoredState kept = await(store.read(type, "a")).orElseThrow();
        assertThat(text(kept)).isEqualTo("state");
        assertThat(kept.epoch()).isEqualTo(4);
    }

    @Test
    void afterAClearTheNextOwnerWritesExistingEntitiesAndEarlierOwnersStayFenced() throws Exception {
        int shard = 11;
        await(store.nextEpoch(type, shard));
        long before = await(store.nextEpoch(type, shard));
        await(store.write(type, "kept", shard, before, bytes("before the clear")));
        await(store.updateRemembered(type, shard, List.of("kept"), List.of()));
        assertThat(await(store.clearShardingData()))
                .as("remembered ids deleted")
                .isPositive();
        assertThat(await(store.clearShardingData()))
                .as("remembered ids deleted by a second clear")
                .isZero();
        long after = await(store.nextEpoch(type, shard));
        assertThat(after).as("the first epoch after the clear").isGreaterThan(before);
        StoredState written = await(store.write(type, "kept", shard, after, bytes("after the clear")));
        assertThat(written.version()).isEqualTo(2);
        assertThat(written.epoch()).isEqualTo(after);
        assertThatThrownBy(() -> await(store.write(type, "kept", shard, before, bytes("by the old owner"))))
                .isInstanceOf(StaleEpochException.class);
        assertThatThrownBy(() -> await(store.write(type, "new", shard, before, bytes("by the old owner"))))
                .isInstanceOf(StaleEpochException.class);
        assertThat(text(await(store.read(type, "kept")).orElseThrow())).isEqualTo("after the clear");
        assertThat(await(store.remembered(type, shard))).isEmpty();
    }

    @Test
    void aCommitLostBeforeItReachedTheDatabaseEveryTimeSaysTheOutcomeIsUnknownAndChangesNothing() throws Exception {
        assumeTrue(canInjectFaults(), "this store cannot be made to fail");
        await(store.write(type, "a", SHARD, 1, bytes("before")));
        injectFault(StoreFault.COMMIT_FAILS);
        for (CompletableFuture<?> f : commitLost()) {
            assertThat(failureOf(f))
                    .as("while every commit is lost, the outcome of the last one tried is unknown")
                    .isInstanceOf(StoreOutcomeUnknownException.class)
                    .hasMessageContaining("may have been stored or not")
                    .hasRootCauseMessage("Injected fault: the connection was lost during commit");
        }
        injectFault(null);
        StoredState row = await(store.read(type, "a")).orElseThrow();
        assertThat(text(row)).isEqualTo("before");
        assertThat(row.version()).isEqualTo(1);
        assertThat(await(store.read(type, "b"))).isEmpty();
        assertThat(await(store.remembered(type, 1))).isEmpty();
        assertThat(await(store.write(type, "a", SHARD, 1, bytes("after"))).version())
                .isEqualTo(2);
        assertThat(await(store.write(type, "b", SHARD, 1, bytes("after"))).version())
                .isEqualTo(1);
    }

    @Test
    void aCommitLostOnTheWayBackIsFoundStoredByTheRowItWroteAndAnswered() throws Exception {
        assumeTrue(canInjectFaults(), "this store cannot be made to fail");
        await(store.write(type, "a", SHARD, 1, bytes("before")));
        injectFault(StoreFault.COMMIT_LOST_AFTER_APPLYING);
        // one transaction or two, as the writer takes them: each writes a state row that tells
        CompletableFuture<StoredState> a = store.write(type, "a", SHARD, 1, bytes("lost"));
        CompletableFuture<StoredState> b = store.write(type, "b", SHARD, 1, bytes("lost"));
        assertThat(await(a).version())
                .as("answered as stored: the row its transaction wrote shows it was committed")
                .isEqualTo(2);
        assertThat(await(b).version()).isEqualTo(1);
        injectFault(null);
        StoredState row = await(store.read(type, "a")).orElseThrow();
        assertThat(text(row)).isEqualTo("lost");
        assertThat(row.version()).as("stored once").isEqualTo(2);
        assertThat(text(await(store.read(type, "b")).orElseThrow())).isEqualTo("lost");
    }

    @Test
    void aCommitLostOnTheWayBackThatWroteNoStateSaysTheOutcomeIsUnknownAndIsStored() throws Exception {
        assumeTrue(canInjectFaults(), "this store cannot be made to fail");
        await(store.write(type, "a", SHARD, 1, bytes("before")));
        injectFault(StoreFault.COMMIT_LOST_AFTER_APPLYING);
        // no state written: no row can tell whether the commit went through
        List<CompletableFuture<?>> lost =
                List.of(store.delete(type, "a", SHARD, 1), store.updateRemembered(type, 1, List.of("b"), List.of()));
        for (CompletableFuture<?> f : lost) {
            assertThat(failureOf(f))
                    .as("never reported as not applied: it was")
                    .isInstanceOf(StoreOutcomeUnknownException.class)
                    .hasMessageContaining("may have been stored or not")
                    .hasRootCauseMessage("Injected fault: the connection was lost after the commit was sent");
        }
        injectFault(null);
        assertThat(await(store.read(type, "a"))).isEmpty();
        assertThat(await(store.remembered(type, 1))).containsExactly("b");
    }

    /** A write and a delete of "a", a write of "b" and a remembered "b", queued together while a commit fault acts. */
    private List<CompletableFuture<?>> commitLost() {
        return List.of(
                store.write(type, "a", SHARD, 1, bytes("lost")),
                store.write(type, "b", SHARD, 1, bytes("lost")),
                store.delete(type, "a", SHARD, 1),
                store.updateRemembered(type, 1, List.of("b"), List.of()));
    }

    @Test
    void anUnreachableDatabaseFailsEveryOperationClearlyUntilItIsBack() throws Exception {
        assumeTrue(canInjectFaults(), "this store cannot be made to fail");
        injectFault(StoreFault.UNREACHABLE);
        List<CompletableFuture<?>> failing = List.of(
                store.write(type, "a", SHARD, 1, bytes("lost")),
                store.read(type, "a"),
                store.nextEpoch(type, 1),
                store.remembered(type, 1),
                store.clearShardingData());
        for (CompletableFuture<?> f : failing) {
            assertThat(failureOf(f))
                    .isInstanceOf(ShardingException.class)
                    .hasRootCauseMessage("Injected fault: the database is unreachable");
        }
        injectFault(null);
        assertThat(await(store.write(type, "a", SHARD, 1, bytes("back"))).version())
                .isEqualTo(1);
        assertThat(await(store.nextEpoch(type, 1))).isEqualTo(1);
    }
}
