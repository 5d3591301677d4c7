package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.EntityUnreachableException;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.test.Counter;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A member crashes (its channel stops without leaving): its entities answer again from the survivors, and asks
 * waiting on it fail as soon as the view shows it gone, not at their timeout.
 */
class MemberCrashClusterTest {

    private final TestCluster cluster = TestCluster.of(Counter.type());

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void entitiesOfACrashedMemberAnswerAgainFromTheSurvivors() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        ShardingNode n1 = nodes.get(0);
        ShardingNode victim = nodes.get(2);
        Map<String, String> homes = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            homes.put(
                    "c-" + i,
                    n1.region(Counter.class)
                            .ask("c-" + i, new Counter.Add(10), Counter.Total.class)
                            .get(10, TimeUnit.SECONDS)
                            .node());
        }
        assertThat(homes).containsValue(victim.nodeName());

        // an ask held by a slow handler on the victim when it crashes
        String slowId = homes.entrySet().stream()
                .filter(e -> e.getValue().equals(victim.nodeName()))
                .findFirst()
                .orElseThrow()
                .getKey();
        CompletableFuture<Counter.Total> inFlight = n1.region(Counter.class)
                .ask(slowId, new Counter.AddLater(1, 60_000), Counter.Total.class, Duration.ofSeconds(120));

        cluster.awaitStable(); // a member lost right after a join cannot be told from a split

        victim.crash();
        cluster.awaitConverged();

        assertThatThrownBy(() -> inFlight.get(60, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(EntityUnreachableException.class)
                .hasMessageContaining(victim.nodeName());

        for (ShardingNode via : cluster.running()) {
            ShardRegion<Counter> region = via.region(Counter.class);
            for (Map.Entry<String, String> e : homes.entrySet()) {
                Counter.Total t = region.ask(e.getKey(), new Counter.Get(), Counter.Total.class)
                        .get(10, TimeUnit.SECONDS);
                assertThat(t.node()).isNotEqualTo(victim.nodeName());
                if (e.getValue().equals(victim.nodeName())) {
                    assertThat(t.total())
                            .as("state of %s lived in the crashed node's memory", e.getKey())
                            .isZero();
                } else {
                    assertThat(t.node()).as("home of %s unchanged", e.getKey()).isEqualTo(e.getValue());
                    assertThat(t.total()).isEqualTo(10);
                }
            }
        }
        // one home per entity after recovery
        Map<String, Integer> hosted = new HashMap<>();
        for (ShardingNode n : cluster.running()) {
            n.localRegion("counter")
                    .entityIds()
                    .values()
                    .forEach(ids -> ids.forEach(id -> hosted.merge(id, 1, Integer::sum)));
        }
        assertThat(hosted)
                .containsOnlyKeys(homes.keySet())
                .allSatisfy((id, count) -> assertThat(count).isOne());
    }

    /**
     * A caller that sees the crashed member leave the view and asks its entities at once: the new view is published
     * only once the regions stopped routing to the member, and a sender that read its home just before looks at the
     * view again, so no such ask is sent to the member gone (it would fail as unreachable, or wait for its timeout).
     */
    @Test
    void asksSentAsSoonAsTheViewDropsACrashedMemberReachTheEntitiesNewHomes() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        ShardingNode via = nodes.get(0);
        ShardingNode victim = nodes.get(2);
        ShardRegion<Counter> region = via.region(Counter.class);
        List<String> onVictim = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            String id = "v-" + i;
            if (region.ask(id, new Counter.Add(1), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS)
                    .node()
                    .equals(victim.nodeName())) {
                onVictim.add(id);
            }
        }
        assertThat(onVictim).isNotEmpty();
        cluster.awaitStable(); // a member lost right after a join cannot be told from a split

        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        CompletableFuture<List<CompletableFuture<Counter.Total>>> sent = CompletableFuture.supplyAsync(() -> {
            // spins rather than polls: the asks must go out the moment the view drops the victim
            while (via.members().contains(victim.self())) {
                if (System.nanoTime() - giveUp > 0) {
                    throw new IllegalStateException("the view still holds the crashed " + victim.nodeName());
                }
                Thread.onSpinWait();
            }
            List<CompletableFuture<Counter.Total>> asks = new ArrayList<>();
            for (int round = 0; round < 20; round++) {
                for (String id : onVictim) {
                    asks.add(region.ask(id, new Counter.Get(), Counter.Total.class, Duration.ofSeconds(60)));
                }
            }
            return asks;
        });
        victim.crash();
        List<CompletableFuture<Counter.Total>> asks = sent.get(90, TimeUnit.SECONDS);
        for (CompletableFuture<Counter.Total> ask : asks) {
            assertThat(ask.get(60, TimeUnit.SECONDS).node()).isNotEqualTo(victim.nodeName());
        }
    }

    @Test
    void aMemberThatLeavesGracefullyIsReplacedAtOnce() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        ShardRegion<Counter> region = nodes.get(0).region(Counter.class);
        for (int i = 0; i < 50; i++) {
            region.ask("g-" + i, new Counter.Add(1), Counter.Total.class).get(10, TimeUnit.SECONDS);
        }
        nodes.get(1).close();
        cluster.awaitConverged();
        for (int i = 0; i < 50; i++) {
            Counter.Total t =
                    region.ask("g-" + i, new Counter.Get(), Counter.Total.class).get(10, TimeUnit.SECONDS);
            assertThat(t.node()).isIn("n1", "n3");
            assertThat(t.total()).isIn(0L, 1L);
        }
        assertThat(nodes.get(1).isRunning()).isFalse();
    }
}
