package dev.sharding.boot.test.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.ShardingStore.Capability;
import dev.sharding.spi.ShardingStore.StoredState;
import dev.sharding.spi.StaleEpochException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ShardingStore} must do, with {@link dev.sharding.store.InMemoryShardingStore}'s semantics as the
 * reference. An implementation's test extends this class and says how to make a store; tests run one after the other,
 * each with entity types of its own, so the database may be shared by all of them. This class holds the reads and
 * writes of entity state; the other topics are contracts it extends, whose tests every subclass runs too:
 * {@link EpochFencingContract} (epochs and the writes they fence), {@link StoreFailureContract} (a database that
 * fails: stores in a database say how to break it, {@link #injectFault}, and get these tests),
 * {@link RememberedEntitiesContract}, {@link CoordinatorLeaseContract} (the coordinator lease and the store id),
 * {@link EventJournalContract} and {@link JournalConcurrencyContract} (the event journal, and the gap guarantee of
 * its reads by offset).
 * The tests of an optional feature run on a store that declares its {@link Capability}, and call nothing of it on one
 * that does not, as the runtime does not.
 */
public abstract class ShardingStoreContract extends JournalConcurrencyContract {

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
}
