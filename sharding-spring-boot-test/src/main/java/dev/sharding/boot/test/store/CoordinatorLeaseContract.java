package dev.sharding.boot.test.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.ShardingStore.Capability;
import dev.sharding.spi.ShardingStore.CoordinatorLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ShardingStore} must do with a cluster's coordinator lease and its store id, as the SPI's javadoc
 * says; part of {@link ShardingStoreContract}, which extends it, and not run alone. Each test uses its own cluster
 * name (the test's entity type) and releases every lease it took when it ends: a store serves one cluster at a time,
 * so a lease left behind would refuse the next test's cluster. The lease tests run on a store that declares
 * {@link Capability#COORDINATOR_LEASE}, and call nothing of the lease on one that does not.
 *
 * <p>Times are measured as a member can measure them: a grant counts from when its answer arrived until the request
 * was sent plus the time left the store returned. Waits for a lease to expire are bounded waits on a condition.
 *
 * @see LeaseFuzzer
 */
public abstract class CoordinatorLeaseContract extends StoreContractSupport {

    private static final Duration LONG = Duration.ofSeconds(30);

    /** Every lease a test asked for, as store, cluster and holder, released when it ends. */
    private final List<Asked> asked = new CopyOnWriteArrayList<>();

    private record Asked(ShardingStore store, String clusterName, String holderId) {}

    private CoordinatorLease acquire(ShardingStore s, String holder, Duration duration) throws Exception {
        return acquire(s, type, holder, duration);
    }

    private CoordinatorLease acquire(ShardingStore s, String clusterName, String holder, Duration duration)
            throws Exception {
        asked.add(new Asked(s, clusterName, holder));
        return await(s.acquireCoordinatorLease(clusterName, holder, "node " + holder, duration));
    }

    @AfterEach
    void releaseLeases() {
        if (canInjectFaults()) {
            injectFault(null);
        }
        for (Asked a : asked) {
            try {
                await(a.store().releaseCoordinatorLease(a.clusterName(), a.holderId()));
            } catch (Exception e) {
                // the store was closed by the test, or failed: the lease runs out on its own
            }
        }
        asked.clear();
    }

    @Test
    void aFreeLeaseIsGrantedForItsDuration() throws Exception {
        assumeCapable(Capability.COORDINATOR_LEASE);
        CoordinatorLease lease = acquire(store, "a", LONG);
        assertThat(lease.granted()).isTrue();
        assertThat(lease.holderId()).isEqualTo("a");
        assertThat(lease.holderName()).isEqualTo("node a");
        assertThat(lease.remaining()).isLessThanOrEqualTo(LONG).isGreaterThan(LONG.minusSeconds(10));
    }

    @Test
    void theHolderRenewsItsLeaseFromTheStoresNow() throws Exception {
        assumeCapable(Capability.COORDINATOR_LEASE);
        assertThat(acquire(store, "a", Duration.ofSeconds(2)).granted()).isTrue();
        CoordinatorLease renewed = acquire(store, "a", LONG);
        assertThat(renewed.granted()).isTrue();
        assertThat(renewed.remaining()).as("renewed for the new duration").isGreaterThan(Duration.ofSeconds(20));
        CoordinatorLease shortened = acquire(store, "a", Duration.ofSeconds(5));
        assertThat(shortened.granted()).isTrue();
        assertThat(shortened.remaining())
                .as("a renewal sets the expiry, it does not only extend it")
                .isLessThanOrEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void anotherMemberIsRefusedWhileTheLeaseLastsAndToldWhoHoldsIt() throws Exception {
        assumeCapable(Capability.COORDINATOR_LEASE);
        ShardingStore peer = track(createPeer(store));
        long sent = System.nanoTime();
        assertThat(acquire(store, "a", LONG).granted()).isTrue();
        CoordinatorLease refused = acquire(peer, "b", LONG);
        long elapsed = System.nanoTime() - sent;
        assertThat(refused.granted()).isFalse();
        assertThat(refused.holderId()).isEqualTo("a");
        assertThat(refused.holderName()).isEqualTo("node a");
        assertThat(refused.remaining())
                .as("time left of a's lease, %d ms after it was asked for", elapsed / 1_000_000)
                .isLessThanOrEqualTo(LONG)
                .isGreaterThanOrEqualTo(LONG.minusNanos(elapsed).minusSeconds(1));
        assertThat(acquire(store, "a", LONG).granted())
                .as("the holder still renews")
                .isTrue();
        assertThat(acquire(peer, "b", LONG).granted()).isFalse();
    }

    @Test
    void anExpiredLeaseGoesToTheNextMemberThatAsks() throws Exception {
        assumeCapable(Capability.COORDINATOR_LEASE);
        ShardingStore peer = track(createPeer(store));
        Duration shortLease = Duration.ofMillis(300);
        long sent = System.nanoTime();
        assertThat(acquire(store, "a", shortLease).granted()).isTrue();
        CoordinatorLease[] last = new CoordinatorLease[1];
        Awaitility.await("lease of a expired and granted to b")
                .atMost(10, TimeUnit.SECONDS)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    last[0] = acquire(peer, "b", LONG);
                    return last[0].granted();
                });
        long grantedAfter = System.nanoTime() - sent;
        assertThat(Duration.ofNanos(grantedAfter))
                .as("b was granted the lease only after a's had expired")
                .isGreaterThanOrEqualTo(shortLease.minusMillis(2));
        assertThat(last[0].holderId()).isEqualTo("b");
        CoordinatorLease refused = acquire(store, "a", shortLease);
        assertThat(refused.granted()).as("a lost it to b").isFalse();
        assertThat(refused.holderId()).isEqualTo("b");
        assertThat(refused.holderName()).isEqualTo("node b");
    }

    @Test
    void releaseByTheHolderFreesTheLeaseAndByAnotherMemberChangesNothing() throws Exception {
        assumeCapable(Capability.COORDINATOR_LEASE);
        ShardingStore peer = track(createPeer(store));
        assertThat(acquire(store, "a", LONG).granted()).isTrue();
        await(peer.releaseCoordinatorLease(type, "b"));
        CoordinatorLease stillHeld = acquire(peer, "b", LONG);
        assertThat(stillHeld.granted()).isFalse();
        assertThat(stillHeld.holderId()).isEqualTo("a");
        await(store.releaseCoordinatorLease(type, "a"));
        assertThat(acquire(peer, "b", LONG).granted())
                .as("granted at once after the release")
                .isTrue();
        await(store.releaseCoordinatorLease(type, "a"));
        assertThat(acquire(store, "a", LONG).holderId())
                .as("a second release by a former holder does nothing")
                .isEqualTo("b");
    }

    @Test
    void anotherClusterIsRefusedWhileTheFirstClustersLeaseLastsAndToldWhichClusterHoldsIt() throws Exception {
        assumeCapable(Capability.COORDINATOR_LEASE);
        ShardingStore peer = track(createPeer(store));
        String otherCluster = type + "-other";
        assertThat(acquire(store, "a", LONG).granted()).isTrue();
        assertThat(acquire(store, "a", LONG).holderCluster())
                .as("the cluster's own lease names no other cluster")
                .isEmpty();
        for (ShardingStore s : List.of(store, peer)) {
            CoordinatorLease refused = acquire(s, otherCluster, "b", LONG);
            assertThat(refused.granted())
                    .as("a second cluster on the store while the first one's lease lasts")
                    .isFalse();
            assertThat(refused.anotherCluster()).isTrue();
            assertThat(refused.holderCluster()).isEqualTo(type);
            assertThat(refused.holderId()).isEqualTo("a");
            assertThat(refused.holderName()).isEqualTo("node a");
            assertThat(refused.remaining()).isLessThanOrEqualTo(LONG).isGreaterThan(Duration.ZERO);
        }
        assertThat(acquire(store, "a", LONG).granted())
                .as("the first cluster still renews")
                .isTrue();

        await(store.releaseCoordinatorLease(type, "a"));
        CoordinatorLease granted = acquire(peer, otherCluster, "b", LONG);
        assertThat(granted.granted())
                .as("once the first cluster's lease is released")
                .isTrue();
        assertThat(granted.holderCluster()).isEmpty();
        CoordinatorLease first = acquire(store, "a", LONG);
        assertThat(first.granted()).as("now the first cluster is the other one").isFalse();
        assertThat(first.holderCluster()).isEqualTo(otherCluster);
    }

    @Test
    void anotherClustersExpiredLeaseRefusesNothing() throws Exception {
        assumeCapable(Capability.COORDINATOR_LEASE);
        ShardingStore peer = track(createPeer(store));
        Duration shortLease = Duration.ofMillis(300);
        assertThat(acquire(store, "a", shortLease).granted()).isTrue();
        Awaitility.await("the first cluster's lease expired and another cluster granted the store")
                .atMost(10, TimeUnit.SECONDS)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> acquire(peer, type + "-other", "b", LONG).granted());
    }

    @Test
    void clustersRacingForAnEmptyStoreAreNeverBothGranted() throws Exception {
        assumeCapable(Capability.COORDINATOR_LEASE);
        List<ShardingStore> stores = List.of(store, track(createPeer(store)), track(createPeer(store)));
        ExecutorService threads = Executors.newFixedThreadPool(6);
        try {
            for (int round = 0; round < 10; round++) {
                List<String> clusters = List.of(type + "-x" + round, type + "-y" + round, type + "-z" + round);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<CoordinatorLease>> answers = new ArrayList<>();
                List<String> askers = new ArrayList<>();
                for (int m = 0; m < 6; m++) {
                    ShardingStore s = stores.get(m % stores.size());
                    String cluster = clusters.get(m % clusters.size());
                    String holder = "m" + m;
                    askers.add(cluster + "/" + holder);
                    answers.add(threads.submit(() -> {
                        start.await();
                        return acquire(s, cluster, holder, LONG);
                    }));
                }
                start.countDown();
                List<String> granted = new ArrayList<>();
                for (int m = 0; m < answers.size(); m++) {
                    CoordinatorLease lease = answers.get(m).get(30, TimeUnit.SECONDS);
                    if (lease.granted()) {
                        granted.add(askers.get(m));
                    }
                }
                assertThat(granted)
                        .as("round %d: the askers granted the store's lease", round)
                        .hasSize(1);
                releaseLeases();
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void membersRacingForTheLeaseFromSeveralStoresNeverHoldItAtOverlappingTimes() throws Exception {
        assumeCapable(Capability.COORDINATOR_LEASE);
        List<ShardingStore> stores = List.of(store, track(createPeer(store)), track(createPeer(store)));
        new LeaseFuzzer(stores, type, Duration.ofMillis(400)).run(6, 20, type.hashCode());
    }

    @Test
    void theStoreIdIsStableAndTheSameForEveryStoreOfOneDatabase() throws Exception {
        Optional<String> id = await(store.storeId());
        assertThat(await(store.storeId())).isEqualTo(id);
        assertThat(await(track(createPeer(store)).storeId())).isEqualTo(id);
        assertThat(await(track(createStore()).storeId())).isEqualTo(id);
    }
}
