package dev.sharding.internal.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.SplitBrainSettings;
import dev.sharding.SplitBrainSettings.Strategy;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The leases are chosen once from the strategy, and each strategy's coordinator runs on its own right: strategy off
 * has no leases, store-lease runs on the store's lease, the others on their members' answers.
 */
class LeasesTest {

    private static final long S = Duration.ofSeconds(1).toNanos();

    private final MemberLeaseTest.Host host = new MemberLeaseTest.Host();

    @Test
    void everyStrategyHasItsLeases() {
        for (Strategy strategy : Strategy.values()) {
            Leases leases = leases(strategy);
            assertThat(leases)
                    .as(strategy.toString())
                    .isInstanceOf(strategy == Strategy.OFF ? NoLeases.class : SplitBrainLeases.class);
        }
    }

    @Test
    void aStoreLeaseCoordinatorRunsOnTheStoresLeaseAndKeepsItWhenItsSideLoses() {
        StoreLease storeLease = storeLease(Strategy.STORE_LEASE);
        CoordinatorRight right = new CoordinatorRight.HeldInStore(storeLease);
        assertThat(right.runUntil(Map.of(), System.nanoTime())).isEqualTo(LeaseTimes.NEVER);
        assertThat(right.confirmedSince(Map.of(), 0, System.nanoTime(), true)).isFalse();
        assertThat(right.mayHoldStoreLease(false))
                .as("the store's lease is its right: it always tries")
                .isTrue();
        assertThat(right.lacking("coordinator a"))
                .isEqualTo("coordinator a does not hold the store's coordinator lease");
    }

    @Test
    void aCoordinatorConfirmedByMembersHoldsTheStoresLeaseOnlyWhileItRuns() {
        SplitBrainSettings settings = SplitBrainSettings.DEFAULT;
        CoordinatorRight right = new CoordinatorRight.ConfirmedByMembers(
                host,
                new PartitionDecider(settings, 5 * S, SplitBrainLeases.skew(5 * S)),
                storeLease(settings.strategy()),
                settings.leaseDuration().toNanos());
        assertThat(right.mayHoldStoreLease(false)).isFalse();
        assertThat(right.mayHoldStoreLease(true)).isTrue();
        assertThat(right.lacking("coordinator a"))
                .isEqualTo("coordinator a has not heard from a winning set of members");
    }

    private Leases leases(Strategy strategy) {
        SplitBrainSettings settings = SplitBrainSettings.DEFAULT.withStrategy(strategy);
        return Leases.of(host, host, settings, 5 * S, storeLease(strategy));
    }

    private StoreLease storeLease(Strategy strategy) {
        SplitBrainSettings settings = SplitBrainSettings.DEFAULT.withStrategy(strategy);
        long lease = settings.leaseDuration().toNanos();
        return new StoreLease(host, settings, lease, LeaseTimes.renewNanos(lease), new StoreLease.Listener() {
            @Override
            public boolean coordinating() {
                return true;
            }

            @Override
            public void regained(long until) {}

            @Override
            public void storeUsedByAnotherCluster(String reason) {}
        });
    }
}
