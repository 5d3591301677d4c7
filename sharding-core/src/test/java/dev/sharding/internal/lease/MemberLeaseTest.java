package dev.sharding.internal.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import dev.sharding.internal.protocol.LeaseGrant;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.LeasePong;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.spi.ShardingStore;
import dev.sharding.store.InMemoryShardingStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A node's own lease: when the node serves, and when entities that found it not serving run again. The lease reads
 * the real clock, so the short lease here runs out for real; the test waits for that, never for a fixed time.
 */
class MemberLeaseTest {

    static final Member COORDINATOR = new Member(0, 1, "coordinator");

    private static final long LEASE = TimeUnit.SECONDS.toNanos(2);

    /**
     * A lease that runs out soon, yet surely after its grant arrives: one of 1 ms could run out before, on a loaded
     * machine, and then grant nothing (the node never served under it, so nothing lapsed).
     */
    private static final long SHORT = TimeUnit.MILLISECONDS.toNanos(200);

    private final Host host = new Host();

    private final MemberLease lease = host.lease(new MemberLease(host, host, LEASE));

    @Test
    void noServingBeforeTheFirstLeaseAndNoCheckOfShardsAtIt() {
        assertThat(lease.serving()).isFalse();
        grant(LEASE);
        assertThat(lease.serving()).isTrue();
        assertThat(host.resumed).as("nothing served before: nothing to check").isZero();
    }

    @Test
    void aRenewalWhileTheLeaseLastsChecksNothing() {
        grant(LEASE);
        grant(LEASE);
        assertThat(host.resumed).isZero();
    }

    @Test
    void aLeaseRenewedLateBeforeAnyTickNoticedTheLapseStillChecksTheShardsAndRunsWaitingEntities() {
        grant(SHORT); // the coordinator answers with a lease that runs out soon
        awaitNotServing();
        // no tick ran checkLapse: an entity that found the node not serving meanwhile was parked; the next grant must
        // wake it (through the check of the shards), or it waits forever
        grant(LEASE);
        assertThat(lease.serving()).isTrue();
        assertThat(host.resumed).isEqualTo(1);
    }

    @Test
    void aLapseATickNoticedIsEndedByTheNextLease() {
        grant(SHORT);
        awaitNotServing();
        assertThat(lease.checkLapse(System.nanoTime(), LEASE, Duration.ofSeconds(2), false, COORDINATOR))
                .as("paused, not lost yet")
                .isNull();
        grant(LEASE);
        assertThat(host.resumed).isEqualTo(1);
        grant(LEASE);
        assertThat(host.resumed).as("once").isEqualTo(1);
    }

    @Test
    void theCoordinatorsOwnNodeExtendedAfterALapseChecksItsShardsToo() {
        long now = System.nanoTime();
        lease.extend(now + TimeUnit.MILLISECONDS.toNanos(1), now, true);
        awaitNotServing();
        now = System.nanoTime();
        lease.extend(now + LEASE, now, true);
        assertThat(host.resumed).isEqualTo(1);
        now = System.nanoTime();
        lease.extend(now + LEASE, now, true);
        assertThat(host.resumed).isEqualTo(1);
    }

    @Test
    void aLeaseThatComesBackHoldsDeliveryBeforeItIsPublishedSoNoEntityServesBeforeTheShardsAreChecked() {
        grant(SHORT);
        awaitNotServing();
        grant(LEASE);
        assertThat(host.servingWhenHeld)
                .as("whether the lease said the node serves when delivery was held (once per return)")
                .containsExactly(false);
        assertThat(host.heldWhenResumed).containsExactly(true);

        long now = System.nanoTime();
        lease.extend(now + TimeUnit.MILLISECONDS.toNanos(1), now, true);
        awaitNotServing();
        now = System.nanoTime();
        lease.extend(now + LEASE, now, true);
        assertThat(host.servingWhenHeld).as("the coordinator's own node too").containsExactly(false, false);
        assertThat(host.heldWhenResumed).containsExactly(true, true);
    }

    /** The coordinator pings and grants the request the ping caused. */
    private void grant(long validForNanos) {
        lease.onPing(COORDINATOR, new LeasePing(1));
        LeasePong pong = (LeasePong) host.sent.remove(host.sent.size() - 1);
        lease.onGrant(new LeaseGrant(pong.request(), validForNanos), true);
    }

    private void awaitNotServing() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (lease.serving()) {
            assertThat(System.nanoTime() - deadline)
                    .as("the short lease ran out")
                    .isNegative();
            Thread.onSpinWait();
        }
    }

    /** The node, as far as its lease uses it, and the parts that act on what the lease decides. */
    static final class Host implements LeaseHost, LeaseListener {

        final List<ProtocolMessage> sent = new ArrayList<>();

        private final ShardingStore store;

        int resumed;

        /** Per {@link #holdDelivery()}: whether the lease said the node serves at that moment. */
        final List<Boolean> servingWhenHeld = new ArrayList<>();

        /** Per {@link #resumeServing()}: whether delivery was held when it was called. */
        final List<Boolean> heldWhenResumed = new ArrayList<>();

        private boolean held;

        /** Whether the lease says the node serves, as the lease under test tells it. */
        private BooleanSupplier serving = () -> false;

        /** The last ping this node sent as the coordinator. */
        LeasePing lastPing() {
            for (int i = sent.size() - 1; i >= 0; i--) {
                if (sent.get(i) instanceof LeasePing p) {
                    return p;
                }
            }
            throw new AssertionError("no ping sent: " + sent);
        }

        /** A lease keeper of this node that tells this host what it decides. */
        LeaseKeeper keeper(SplitBrainSettings settings, long stableAfterNanos) {
            LeaseKeeper keeper = new LeaseKeeper(this, settings, stableAfterNanos);
            keeper.listen(this);
            return keeper;
        }

        /** A host over a store of its own, in memory. */
        Host() {
            this(new InMemoryShardingStore());
        }

        /**
         * A host over a store.
         *
         * @param store the store
         */
        Host(ShardingStore store) {
            this.store = store;
        }

        MemberLease lease(MemberLease lease) {
            serving = lease::serving;
            return lease;
        }

        void servingBy(BooleanSupplier serving) {
            this.serving = serving;
        }

        @Override
        public Member self() {
            return new Member(0, 2, "self");
        }

        @Override
        public String nodeName() {
            return "self";
        }

        @Override
        public String clusterName() {
            return "test";
        }

        @Override
        public List<Member> members() {
            return List.of(COORDINATOR, self());
        }

        @Override
        public ShardingStore store() {
            return store;
        }

        @Override
        public void send(Member to, ProtocolMessage msg, boolean outOfBand) {
            sent.add(msg);
        }

        @Override
        public boolean runOnControlLater(Runnable task) {
            task.run();
            return true;
        }

        @Override
        public void coordinatorMayRun() {}

        /** Per {@link #stopServing}: the reason. */
        final List<String> stopped = new ArrayList<>();

        @Override
        public void stopServing(String reason) {
            stopped.add(reason);
        }

        @Override
        public void holdDelivery() {
            held = true;
            servingWhenHeld.add(serving.getAsBoolean());
        }

        @Override
        public void resumeServing() {
            resumed++;
            heldWhenResumed.add(held);
            held = false;
        }

        /** Per {@link #storeUsedByAnotherCluster}: the reason. */
        final List<String> storeRefusals = new ArrayList<>();

        @Override
        public void storeUsedByAnotherCluster(String reason) {
            storeRefusals.add(reason);
        }
    }
}
