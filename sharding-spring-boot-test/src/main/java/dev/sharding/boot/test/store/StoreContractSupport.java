package dev.sharding.boot.test.store;

import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.ShardingStore.Capability;
import dev.sharding.spi.ShardingStore.StoredState;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * The plumbing of {@link ShardingStoreContract}: how an implementation's test makes stores and breaks their
 * database, a fresh store and entity type per test, and helpers that wait with a bound.
 */
public abstract class StoreContractSupport {

    private static final AtomicInteger TYPES = new AtomicInteger();

    private final Set<ShardingStore> opened = Collections.newSetFromMap(new IdentityHashMap<>());

    /** The shard the state-writing tests use; the epoch tests use other shards. */
    protected static final int SHARD = 0;

    /** The store under test, made fresh for each test. */
    protected ShardingStore store;

    /** An entity type no other test uses. */
    protected String type;

    /**
     * Makes a store, ready to use (schema created). Every store one test class makes must use the same database.
     *
     * @return the store; the contract closes it
     */
    protected abstract ShardingStore createStore();

    /**
     * A second node's store on the same database.
     *
     * @param first the first node's store
     * @return another store on the same data, or {@code first} itself for a store shared within the JVM
     */
    protected ShardingStore createPeer(ShardingStore first) {
        return createStore();
    }

    /**
     * Whether {@link #injectFault} works; stores without a database cannot fail and skip the failure tests.
     *
     * @return false unless overridden
     */
    protected boolean canInjectFaults() {
        return false;
    }

    /**
     * Makes every store of this test's database suffer a failure from now on, or heals it.
     *
     * @param fault the failure, or {@code null} for none
     */
    protected void injectFault(@Nullable StoreFault fault) {
        throw new UnsupportedOperationException("This store cannot be made to fail");
    }

    /**
     * Skips the calling test unless the store under test declares a capability ({@link ShardingStore#capabilities()}):
     * the contract, as the runtime, never calls a store for an optional feature it does not declare.
     *
     * @param capability the feature the test calls
     */
    protected void assumeCapable(Capability capability) {
        Assumptions.assumeTrue(
                store.capabilities().contains(capability),
                () -> store.getClass().getName() + " does not declare " + capability);
    }

    @BeforeEach
    void openStore(TestInfo info) {
        type = "t" + TYPES.incrementAndGet() + "-"
                + info.getTestMethod().map(m -> m.getName()).orElse("test");
        store = track(createStore());
    }

    @AfterEach
    void closeStores() {
        if (canInjectFaults()) {
            injectFault(null);
        }
        opened.forEach(ShardingStore::close);
        opened.clear();
    }

    /**
     * Registers a store to be closed after the test.
     *
     * @param s the store
     * @return the store
     */
    protected ShardingStore track(ShardingStore s) {
        opened.add(s);
        return s;
    }

    /**
     * Waits for a store future, at most 20 s.
     *
     * @param future the future
     * @param <T> its type
     * @return its value
     * @throws Exception its failure (unwrapped), or a timeout naming the wait
     */
    protected static <T> T await(CompletableFuture<T> future) throws Exception {
        try {
            return future.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException e) {
            throw new AssertionError("A store operation did not complete within 20 s", e);
        }
    }

    /**
     * Waits for a future that may fail.
     *
     * @param future the future
     * @return its failure, or {@code null} if it succeeded
     * @throws Exception when it does not complete within 20 s
     */
    protected static @Nullable Throwable failureOf(CompletableFuture<?> future) throws Exception {
        try {
            await(future);
            return null;
        } catch (AssertionError e) {
            throw e;
        } catch (Exception e) {
            return e;
        }
    }

    /**
     * UTF-8 bytes of a text.
     *
     * @param text the text
     * @return its bytes
     */
    protected static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A stored state as UTF-8 text.
     *
     * @param state the state
     * @return its text
     */
    protected static String text(StoredState state) {
        return new String(state.state(), StandardCharsets.UTF_8);
    }
}
