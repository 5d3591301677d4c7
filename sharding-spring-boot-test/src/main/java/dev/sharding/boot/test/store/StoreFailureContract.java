package dev.sharding.boot.test.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sharding.ShardingException;
import dev.sharding.StoreOutcomeUnknownException;
import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.ShardingStore.StoredState;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * What a {@link ShardingStore} in a database must do when the database fails it: commits lost on the way there or
 * back, and a database out of reach; part of {@link ShardingStoreContract}, which extends it, and not run alone. The
 * tests run on stores that say how to break their database ({@link #canInjectFaults()}).
 */
public abstract class StoreFailureContract extends RememberedEntitiesContract {

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
        assertThat(writeOnceBack("a", "back").version()).isEqualTo(1);
        assertThat(await(store.nextEpoch(type, 1))).isEqualTo(1);
    }

    /**
     * A write once the database is back. A store may fail writes at once, unapplied, while it knows its database to be
     * out of reach, and take them again once it has seen the database answer: the write is sent again, as a caller
     * would after such a failure, until it is stored (within 10 s) or fails otherwise.
     */
    private StoredState writeOnceBack(String id, String value) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                return await(store.write(type, id, SHARD, 1, bytes(value)));
            } catch (ShardingException e) {
                if (e instanceof StoreOutcomeUnknownException || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
    }
}
