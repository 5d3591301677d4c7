package dev.sharding.boot.test.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.ShardingStore.CoordinatorLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Several members, spread over several stores on one database (or one shared store), ask for one cluster's
 * coordinator lease at once, again and again: each renews while it holds it, now and then pauses for longer than the
 * lease (so that it expires and someone else takes it) or releases it. Each member counts a lease it was granted as
 * held from the moment the answer arrived until the moment it sent the request plus the time left that the store
 * returned (or until it sent a release): the most it may assume without a clock of its own on the store's. The check:
 * <ul>
 * <li>no two members ever held it at overlapping times;</li>
 * <li>the lease changed hands several times, and members were refused while another held it (else the run proved
 * nothing);</li>
 * <li>a refusal names a holder other than the asker, with a time left no longer than a lease plus the request's
 * own round trip (the holder may have renewed while the request waited for the row).</li>
 * </ul>
 * A request may fail when the store cannot answer within the lease (a loaded machine); its member then counts
 * itself as not holding the lease, which is what a coordinator must do too. Most requests must be answered.
 * Every member runs on a thread of its own, so that requests really race, and releases the lease when it is done, so
 * that the run leaves none behind.
 */
public final class LeaseFuzzer {

    /** Clock rate differences between the JVM and the database over one lease; far below any real overlap. */
    private static final long TOLERANCE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final List<ShardingStore> stores;

    private final String clusterName;

    private final Duration lease;

    private final List<Held> held = new CopyOnWriteArrayList<>();

    private final List<String> refusals = new CopyOnWriteArrayList<>();

    private final List<String> failures = new CopyOnWriteArrayList<>();

    /**
     * Creates a run.
     *
     * @param stores the stores of the members, one database
     * @param clusterName the cluster, used by nothing else
     * @param lease how long each grant lasts
     */
    public LeaseFuzzer(List<ShardingStore> stores, String clusterName, Duration lease) {
        this.stores = List.copyOf(stores);
        this.clusterName = clusterName;
        this.lease = lease;
    }

    /**
     * Runs the members and checks what they saw.
     *
     * @param members how many members, spread over the stores in turn
     * @param requestsPerMember lease requests per member
     * @param seed the random seed (printed with any failure)
     * @throws Exception when a request fails or a member does not finish within a minute
     */
    public void run(int members, int requestsPerMember, long seed) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(members);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> running = new ArrayList<>();
        try {
            for (int m = 0; m < members; m++) {
                int member = m;
                running.add(threads.submit(() -> {
                    start.await();
                    member(member, requestsPerMember, new Random(seed + member));
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : running) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        check(seed);
    }

    private void member(int member, int requests, Random random) throws Exception {
        ShardingStore store = stores.get(member % stores.size());
        String id = "member-" + member;
        @Nullable Held current = null;
        List<Held> mine = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            long sent = System.nanoTime();
            CoordinatorLease got;
            try {
                got = store.acquireCoordinatorLease(clusterName, id, "node " + member, lease)
                        .get(20, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                // no answer within the lease (a loaded machine): the member cannot count on holding it
                failures.add(id + ": " + e.getCause());
                current = null;
                continue;
            }
            long received = System.nanoTime();
            if (got.granted()) {
                assertThat(got.holderId()).isEqualTo(id);
                assertThat(got.remaining()).isLessThanOrEqualTo(lease);
                current = new Held(id, received, sent + got.remaining().toNanos());
                held.add(current);
                mine.add(current);
            } else {
                assertThat(got.holderId())
                        .as("holder named in a refusal to %s", id)
                        .isNotEqualTo(id);
                // the holder may have renewed while this request waited for the row; never later than that
                assertThat(got.remaining())
                        .as("time left named in a refusal")
                        .isLessThanOrEqualTo(lease.plusNanos(received - sent));
                refusals.add(id);
            }
            int dice = random.nextInt(10);
            if (dice == 0 && current != null) {
                long releasing = System.nanoTime();
                mine.forEach(h -> h.endBy(releasing));
                store.releaseCoordinatorLease(clusterName, id).get(20, TimeUnit.SECONDS);
                current = null;
            } else if (dice <= 2) {
                // pause past the lease: whoever holds it now may lose it to a member still asking
                Thread.sleep(lease.toMillis() + random.nextInt((int) lease.toMillis()));
                current = null;
            } else {
                Thread.sleep(random.nextInt((int) Math.max(1, lease.toMillis() / 3)));
            }
        }
        // leave no lease behind: the store serves one cluster at a time, and the next test may use another name
        long releasing = System.nanoTime();
        mine.forEach(h -> h.endBy(releasing));
        store.releaseCoordinatorLease(clusterName, id).get(20, TimeUnit.SECONDS);
    }

    private void check(long seed) {
        List<Held> grants = new ArrayList<>(held);
        grants.sort(Comparator.comparingLong(Held::from));
        Map<String, Long> latestEnd = new HashMap<>();
        @Nullable String previous = null;
        int handovers = 0;
        for (Held h : grants) {
            if (h.until() <= h.from()) {
                // the answer came after the lease it granted had ended: never held
                continue;
            }
            for (Map.Entry<String, Long> other : latestEnd.entrySet()) {
                if (!other.getKey().equals(h.holder())) {
                    assertThat(h.from() + TOLERANCE_NANOS)
                            .as(
                                    "seed %d: %s took the lease %.2f ms before %s's" + " lease ended",
                                    seed, h.holder(), (other.getValue() - h.from()) / 1e6, other.getKey())
                            .isGreaterThanOrEqualTo(other.getValue());
                }
            }
            latestEnd.merge(h.holder(), h.until(), Math::max);
            if (previous != null && !previous.equals(h.holder())) {
                handovers++;
            }
            previous = h.holder();
        }
        assertThat(handovers).as("seed %d: times the lease changed hands", seed).isGreaterThanOrEqualTo(3);
        assertThat(refusals).as("seed %d: refusals", seed).isNotEmpty();
        assertThat(failures.size())
                .as("seed %d: requests that failed: %s", seed, failures)
                .isLessThan(held.size() + refusals.size());
    }

    /** A grant as its member counts it, in {@link System#nanoTime()}. */
    private static final class Held {

        private final String holder;

        private final long from;

        private volatile long until;

        Held(String holder, long from, long until) {
            this.holder = holder;
            this.from = from;
            this.until = until;
        }

        String holder() {
            return holder;
        }

        long from() {
            return from;
        }

        long until() {
            return until;
        }

        void endBy(long time) {
            until = Math.min(until, time);
        }
    }
}
