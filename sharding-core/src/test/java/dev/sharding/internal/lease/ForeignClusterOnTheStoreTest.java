package dev.sharding.internal.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import dev.sharding.internal.protocol.LeaseGrant;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.LeasePong;
import dev.sharding.internal.protocol.LeaseRefused;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A node started where it cannot reach its cluster forms a cluster of its own on the same store. Its coordinator
 * allocates nothing while the real coordinator holds the store's lease; if that lease lapses (the database out of the
 * real coordinator's reach for a while) and the lone node takes it, the real cluster stops within a lease of learning
 * it, and the lone node places nothing before that.
 */
class ForeignClusterOnTheStoreTest {

    private static final long LEASE = Duration.ofSeconds(2).toNanos();

    private static final long RENEW = LEASE / 4;

    private final MemberLeaseTest.Host host = new MemberLeaseTest.Host();

    private final LeaseKeeper keeper =
            host.keeper(SplitBrainSettings.DEFAULT, Duration.ofSeconds(5).toNanos());

    @Test
    void aLoneClusterThatFoundAnotherHoldingTheStoreLeasePlacesNothingUntilTwoLeasesAfterItTookIt() throws Exception {
        host.store()
                .acquireCoordinatorLease(host.clusterName(), "real-coordinator-id", "n1", Duration.ofMillis(300))
                .get(1, TimeUnit.SECONDS);
        long now = System.nanoTime();
        keeper.onView(List.of(host.self()), now);
        assertThat(keeper.inCharge(now)).isFalse();
        assertThat(keeper.confirmedActivationFence(now))
                .as("another cluster's coordinator holds the store's lease")
                .isEqualTo(Long.MAX_VALUE);

        // the real coordinator cannot renew (its database is out of reach): the lease runs out, the lone node takes it
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!keeper.inCharge(now)) {
            assertThat(System.nanoTime())
                    .as("the lone node took the lapsed lease")
                    .isLessThan(deadline);
            TimeUnit.MILLISECONDS.sleep(20); // polls: the node renews each quarter lease of real time
            now = System.nanoTime();
            keeper.tick(now);
        }
        long fence = keeper.confirmedActivationFence(now);
        assertThat(fence - now)
                .as("the other cluster's coordinator learns it within a quarter lease, its nodes stop a lease later")
                .isGreaterThanOrEqualTo(2 * LEASE - RENEW);
    }

    @Test
    void aLoneClusterThatNeverSawAnotherPlacesAtOnce() {
        long now = System.nanoTime();
        keeper.onView(List.of(host.self()), now);
        keeper.tick(now);
        assertThat(keeper.inCharge(now)).isTrue();
        assertThat(keeper.confirmedActivationFence(now)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void aCoordinatorThatFindsAnotherClusterHoldingTheStoreLeaseStopsExtendingItsOwnNode() throws Exception {
        long now = System.nanoTime();
        keeper.onView(List.of(host.self()), now);
        keeper.tick(now);
        assertThat(keeper.serving()).isTrue();
        long before = keeper.servingUntil();

        // its lease in the store is gone (say, the row was removed), and a lone node of the same name took it
        host.store()
                .releaseCoordinatorLease(host.clusterName(), host.self().id())
                .get(1, TimeUnit.SECONDS);
        host.store()
                .acquireCoordinatorLease(host.clusterName(), "lone-node-id", "n9", Duration.ofSeconds(30))
                .get(1, TimeUnit.SECONDS);
        keeper.tick(now + RENEW); // the renewal finds the other holder
        keeper.tick(now + 2 * RENEW);

        assertThat(keeper.foreignHolder()).isEqualTo("n9");
        assertThat(keeper.servingUntil())
                .as("its own lease is not extended: it runs out")
                .isEqualTo(before);
        assertThat(keeper.inCharge(now + 2 * RENEW)).isFalse();
    }

    @Test
    void aCoordinatorThatFindsAClusterOfAnotherNameOnTheStoreRefusesItsClusterOnceAndNeverAsksAgain() throws Exception {
        host.store()
                .acquireCoordinatorLease("other-cluster", "other-coordinator-id", "o1", Duration.ofMillis(600))
                .get(1, TimeUnit.SECONDS);
        long now = System.nanoTime();
        keeper.onView(List.of(host.self()), now);
        keeper.tick(now + RENEW);
        keeper.tick(now + 2 * RENEW);

        assertThat(keeper.inCharge(now + 2 * RENEW)).isFalse();
        assertThat(keeper.foreignHolder()).contains("o1").contains("other-cluster");
        assertThat(host.storeRefusals)
                .as("told once, naming both clusters and the fix")
                .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .contains("'other-cluster'")
                .contains("'" + host.clusterName() + "'")
                .contains("sharding.store.table-prefix");

        // the other cluster's lease lapses: this cluster must not take the store from it
        Awaitility.await("the other cluster's lease lapsed")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    boolean free = host.store()
                            .acquireCoordinatorLease("probe", "probe-id", "p", Duration.ofSeconds(1))
                            .get(1, TimeUnit.SECONDS)
                            .granted();
                    if (free) {
                        host.store()
                                .releaseCoordinatorLease("probe", "probe-id")
                                .get(1, TimeUnit.SECONDS);
                    }
                    return free;
                });
        keeper.tick(now + 3 * RENEW);
        keeper.tick(now + 4 * RENEW);
        assertThat(host.store()
                        .acquireCoordinatorLease("other-cluster", "other-coordinator-id", "o1", Duration.ofSeconds(5))
                        .get(1, TimeUnit.SECONDS)
                        .granted())
                .as("the other cluster takes its lease back: this one never asked again")
                .isTrue();
        assertThat(host.storeRefusals).hasSize(1);
    }

    @Test
    void aNodeRefusedForGoodNeverTakesTheStoresLeaseEvenAsTheCoordinator() throws Exception {
        keeper.refusedForGood();
        long now = System.nanoTime();
        keeper.onView(List.of(host.self()), now);
        keeper.tick(now + RENEW);
        keeper.tick(now + 2 * RENEW);

        assertThat(keeper.inCharge(now + 2 * RENEW)).isFalse();
        assertThat(host.store()
                        .acquireCoordinatorLease("another-cluster", "x", "x1", Duration.ofSeconds(5))
                        .get(1, TimeUnit.SECONDS)
                        .granted())
                .as("the store's lease was never taken by the refused node")
                .isTrue();
    }

    /**
     * Seen in a rolling restart on a loaded machine: a restarted node did not find the others within the join timeout,
     * started a cluster of its own, found the real coordinator holding the store's lease, and merged with the others a
     * few seconds later as the merged cluster's coordinator. It still took the holder for another cluster: it granted
     * nobody a lease, nor itself, and the whole cluster stopped serving for a moment.
     */
    @Test
    void aLoneNodeThatMergesWithTheHolderOfTheStoreLeaseAsItsCoordinatorRunsAtOnce() throws Exception {
        Member other = new Member(0, 7, "n1");
        host.store()
                .acquireCoordinatorLease(host.clusterName(), other.id(), other.name(), Duration.ofSeconds(30))
                .get(1, TimeUnit.SECONDS);
        long now = System.nanoTime();
        keeper.onView(List.of(host.self()), now);
        keeper.tick(now + RENEW);
        assertThat(keeper.foreignHolder()).isEqualTo("n1");

        // the merge: this node coordinates the merged cluster, the holder of the store's lease among its members
        long merged = now + 2 * RENEW;
        host.sent.clear();
        keeper.onView(List.of(host.self(), other), merged);
        assertThat(keeper.foreignHolder()).as("the holder is a member now").isNull();
        keeper.tick(merged + 1);
        assertThat(keeper.serving()).as("its own node serves").isTrue();
        LeasePing ping = host.sent.stream()
                .filter(LeasePing.class::isInstance)
                .map(LeasePing.class::cast)
                .findFirst()
                .orElseThrow();
        keeper.onPong(other, new LeasePong(ping.round(), 1, LeasePong.NONE));
        assertThat(host.sent)
                .as("the member that held the store's lease is granted one of its own, not refused")
                .anySatisfy(m -> assertThat(m).isInstanceOf(LeaseGrant.class))
                .noneSatisfy(m -> assertThat(m).isInstanceOf(LeaseRefused.class));
        assertThat(keeper.inCharge(merged + 1))
                .as("it allocates only once it holds the store's lease, which the holder still does")
                .isFalse();
    }

    @Test
    void aCoordinatorHeldBackByTheStoreLeaseSaysSoWhenItStopsServing() throws Exception {
        long now = System.nanoTime();
        keeper.onView(List.of(host.self()), now);
        keeper.tick(now);
        assertThat(keeper.serving()).isTrue();
        host.store()
                .releaseCoordinatorLease(host.clusterName(), host.self().id())
                .get(1, TimeUnit.SECONDS);
        host.store()
                .acquireCoordinatorLease(host.clusterName(), "unknown-id", "n9", Duration.ofSeconds(60))
                .get(1, TimeUnit.SECONDS);
        for (long t = now + RENEW; t - now < 20 * LEASE && host.stopped.isEmpty(); t += RENEW) {
            keeper.tick(t);
        }
        assertThat(host.stopped)
                .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .contains("n9")
                .contains("store's coordinator lease")
                .doesNotContain("winning set");
    }

    @Test
    void aCoordinatorThatAMergePutsSecondGivesUpTheStoreLeaseAtOnce() throws Exception {
        Member other = new Member(0, 1, "n0"); // the merged cluster's coordinator
        long now = System.nanoTime();
        keeper.onView(List.of(host.self()), now);
        keeper.tick(now);
        assertThat(keeper.inCharge(now)).as("it holds the store's lease").isTrue();

        keeper.onView(List.of(other, host.self()), now + RENEW);
        assertThat(host.store()
                        .acquireCoordinatorLease(host.clusterName(), other.id(), other.name(), Duration.ofSeconds(2))
                        .get(1, TimeUnit.SECONDS)
                        .granted())
                .as("the new coordinator takes the store's lease without waiting for it to run out")
                .isTrue();
    }

    @Test
    void underStoreLeaseACoordinatorThatAMergePutsSecondLetsTheStoreLeaseRunOut() throws Exception {
        LeaseKeeper storeLeaseKeeper = host.keeper(
                SplitBrainSettings.DEFAULT.withStrategy(SplitBrainSettings.Strategy.STORE_LEASE),
                Duration.ofSeconds(5).toNanos());
        Member other = new Member(0, 1, "n0");
        long now = System.nanoTime();
        storeLeaseKeeper.onView(List.of(host.self()), now);
        storeLeaseKeeper.tick(now);

        storeLeaseKeeper.onView(List.of(other, host.self()), now + RENEW);
        assertThat(host.store()
                        .acquireCoordinatorLease(host.clusterName(), other.id(), other.name(), Duration.ofSeconds(2))
                        .get(1, TimeUnit.SECONDS)
                        .granted())
                .as("the lease is the right to run: the grants made under it end with it")
                .isFalse();
    }
}
