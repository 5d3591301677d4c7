package dev.sharding.boot.test.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.ShardingStore.StoredState;
import dev.sharding.spi.StaleEpochException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Two "nodes" (two stores on one database, or one shared store) write the same entities concurrently, each under
 * the epoch it last obtained for the entity's shard, and now and then obtain a new epoch (a handoff), so that the
 * other node's writes turn stale while some of them are still in flight. Afterwards every entity is checked:
 * <ul>
 * <li>the accepted writes got versions 1..n, each once (every accepted write is in the history, once);</li>
 * <li>by version, their epochs never decrease (no write under an older epoch slipped in after a newer one);</li>
 * <li>every refused write was refused for a reason: some accepted write had a higher epoch;</li>
 * <li>the stored row is the accepted write with the highest version, so no refused write is visible.</li>
 * </ul>
 * Failures other than {@link StaleEpochException} fail the run.
 */
public final class EpochFuzzer {

    private static final int WINDOW = 8;

    private final ShardingStore[] nodes;

    private final String typeName;

    private final int ids;

    private final List<Attempt> attempts = new CopyOnWriteArrayList<>();

    private final List<Map<Integer, Long>> epochsSeen = List.of(new ConcurrentHashMap<>(), new ConcurrentHashMap<>());

    /**
     * Creates a run.
     *
     * @param nodeA the first node's store
     * @param nodeB the second node's store (may be the same object when the store is shared in the JVM)
     * @param typeName the entity type, used by nothing else
     * @param ids how many entities
     */
    public EpochFuzzer(ShardingStore nodeA, ShardingStore nodeB, String typeName, int ids) {
        this.nodes = new ShardingStore[] {nodeA, nodeB};
        this.typeName = typeName;
        this.ids = ids;
    }

    /**
     * Runs the writers and then checks every entity.
     *
     * @param threads writer threads, alternately on each node
     * @param writesPerThread writes per thread
     * @param seed the random seed (printed with any failure)
     * @throws Exception when a writer fails
     */
    public void run(int threads, int writesPerThread, long seed) throws Exception {
        List<CompletableFuture<Void>> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            writers.add(CompletableFuture.runAsync(() -> write(thread, writesPerThread, new Random(seed + thread))));
        }
        for (CompletableFuture<Void> writer : writers) {
            writer.get(60, TimeUnit.SECONDS);
        }
        for (int id = 0; id < ids; id++) {
            check(id, seed);
        }
    }

    private void write(int thread, int count, Random random) {
        int node = thread % 2;
        Deque<CompletableFuture<StoredState>> window = new ArrayDeque<>();
        for (int i = 0; i < count; i++) {
            int id = random.nextInt(ids);
            Long epoch = epochsSeen.get(node).get(id);
            if (epoch == null || random.nextInt(10) == 0) {
                long fresh = join(nodes[node].nextEpoch(typeName, id));
                epoch = epochsSeen.get(node).merge(id, fresh, Math::max);
            }
            String payload = "node" + node + "-thread" + thread + "-write" + i;
            CompletableFuture<StoredState> future =
                    nodes[node].write(typeName, entityId(id), id, epoch, payload.getBytes(StandardCharsets.UTF_8));
            attempts.add(new Attempt(id, epoch, payload, future));
            window.add(future);
            if (window.size() == WINDOW) {
                window.poll().exceptionally(e -> null).join();
            }
        }
        window.forEach(f -> f.exceptionally(e -> null).join());
    }

    private void check(int id, long seed) throws Exception {
        List<Attempt> accepted = new ArrayList<>();
        List<Attempt> refused = new ArrayList<>();
        for (Attempt a : attempts) {
            if (a.id() != id) {
                continue;
            }
            Throwable failure = failure(a.future());
            if (failure == null) {
                accepted.add(a);
            } else {
                assertThat(failure)
                        .as("seed %d: %s failed otherwise than stale", seed, a)
                        .isInstanceOf(StaleEpochException.class);
                refused.add(a);
            }
        }
        accepted.sort(Comparator.comparingLong(a -> a.future().join().version()));
        for (int i = 0; i < accepted.size(); i++) {
            StoredState s = accepted.get(i).future().join();
            assertThat(s.version())
                    .as("seed %d: versions of the accepted writes of %s", seed, entityId(id))
                    .isEqualTo(i + 1);
            assertThat(s.epoch())
                    .as("seed %d: epoch reported for %s", seed, accepted.get(i))
                    .isEqualTo(accepted.get(i).epoch());
            assertThat(new String(s.state(), StandardCharsets.UTF_8))
                    .isEqualTo(accepted.get(i).payload());
            if (i > 0) {
                assertThat(s.epoch())
                        .as(
                                "seed %d: version %d of %s was accepted under a lower epoch than version %d",
                                seed, i + 1, entityId(id), i)
                        .isGreaterThanOrEqualTo(accepted.get(i - 1).epoch());
            }
        }
        long highestAccepted = accepted.stream().mapToLong(Attempt::epoch).max().orElse(0);
        for (Attempt r : refused) {
            assertThat(highestAccepted)
                    .as("seed %d: %s was refused though no write had a higher epoch", seed, r)
                    .isGreaterThan(r.epoch());
        }
        Optional<StoredState> row = nodes[0].read(typeName, entityId(id)).get(10, TimeUnit.SECONDS);
        if (accepted.isEmpty()) {
            assertThat(row)
                    .as("seed %d: %s has no accepted write", seed, entityId(id))
                    .isEmpty();
            return;
        }
        Attempt last = accepted.get(accepted.size() - 1);
        assertThat(row).as("seed %d: stored row of %s", seed, entityId(id)).isPresent();
        assertThat(new String(row.get().state(), StandardCharsets.UTF_8))
                .as("seed %d: stored state of %s", seed, entityId(id))
                .isEqualTo(last.payload());
        assertThat(row.get().version()).isEqualTo(accepted.size());
        assertThat(row.get().epoch()).isEqualTo(last.epoch());
    }

    private static @Nullable Throwable failure(CompletableFuture<StoredState> future) throws Exception {
        try {
            future.get(10, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError("A write did not complete within 10 s", e);
        }
    }

    private static <T> T join(CompletableFuture<T> future) {
        try {
            return future.get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("nextEpoch failed or hung", e);
        }
    }

    private static String entityId(int id) {
        return "fuzz-" + id;
    }

    /**
     * One write and its future.
     *
     * @param id the entity number
     * @param epoch the epoch written under
     * @param payload the state written
     * @param future its outcome
     */
    private record Attempt(int id, long epoch, String payload, CompletableFuture<StoredState> future) {}
}
