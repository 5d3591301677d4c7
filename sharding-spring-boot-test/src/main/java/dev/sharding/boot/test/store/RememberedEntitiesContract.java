package dev.sharding.boot.test.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.ShardingStore.StoredState;
import dev.sharding.spi.StaleEpochException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ShardingStore} must do with remembered entities and the clearing of the sharding data, fenced by
 * the shards' epochs as state writes are; part of {@link ShardingStoreContract}, which extends it, and not run alone.
 */
public abstract class RememberedEntitiesContract extends CoordinatorLeaseContract {

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
}
