package dev.sharding.boot.test.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.ShardingStore.Capability;
import dev.sharding.spi.ShardingStore.StoredState;
import dev.sharding.spi.StaleEpochException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ShardingStore} must do with the epochs of shard allocations: hand them out, one more each time
 * and distinct across nodes, read them back where the store declares {@link Capability#CURRENT_EPOCHS}, and refuse
 * the writes made under an older one; part of {@link ShardingStoreContract}, which extends it, and not run alone.
 *
 * @see EpochFuzzer
 */
public abstract class EpochFencingContract extends StoreFailureContract {

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
}
