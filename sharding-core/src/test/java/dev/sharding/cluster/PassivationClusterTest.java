package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityTypeSettings;
import dev.sharding.PassivationStrategy;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.test.ControllableStore;
import dev.sharding.test.TestCluster;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Passivation stops entities without losing a message sent to them meanwhile: on the entity's own request, when it
 * is idle, and beyond the limit of live entities (least recently used first).
 */
class PassivationClusterTest {

    private final ControllableStore store = new ControllableStore();

    private final TestCluster cluster = new TestCluster(
            s -> ShardingNode.builder(s).entityType(Wallet.type()).store(store));

    @AfterEach
    void stop() {
        cluster.close();
    }

    private static long live(ShardingNode node) {
        return node.localRegion("wallet").entityIds().values().stream()
                .mapToLong(List::size)
                .sum();
    }

    @Test
    void anEntityThatPassivatesItselfLosesNoMessageSentMeanwhile() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        int createdBefore = Wallet.CREATED.get();
        List<CompletableFuture<Wallet.Reply>> replies = new ArrayList<>();
        long expected = 0;
        for (int round = 0; round < 50; round++) {
            for (ShardingNode via : nodes) {
                ShardRegion<Wallet> region = via.region(Wallet.class);
                replies.add(region.ask("p", new Wallet.Deposit(1), Wallet.Reply.class));
                expected++;
                if (round % 5 == 0) {
                    replies.add(region.ask("p", new Wallet.Rest(), Wallet.Reply.class));
                }
            }
        }
        for (CompletableFuture<Wallet.Reply> r : replies) {
            r.get(30, TimeUnit.SECONDS);
        }
        Wallet.Reply end = nodes.get(0)
                .region(Wallet.class)
                .ask("p", new Wallet.Read(), Wallet.Reply.class)
                .get(10, TimeUnit.SECONDS);
        assertThat(end.amount()).as("every deposit, across incarnations").isEqualTo(expected);
        assertThat(Wallet.CREATED.get() - createdBefore).as("incarnations").isGreaterThan(5);
        long passivations = nodes.stream()
                .mapToLong(n -> n.localRegion("wallet").passivations())
                .sum();
        assertThat(passivations).isGreaterThanOrEqualTo(Wallet.CREATED.get() - createdBefore - 1);
    }

    @Test
    void idleEntitiesArePassivatedAndComeBackWithTheirState() throws Exception {
        List<ShardingNode> nodes =
                cluster.startNodes(2, s -> s.withPassivation(s.passivation().withIdleTimeout(Duration.ofMillis(300))));
        ShardRegion<Wallet> region = nodes.get(0).region(Wallet.class);
        for (int i = 0; i < 40; i++) {
            region.ask("i-" + i, new Wallet.Deposit(3), Wallet.Reply.class).get(10, TimeUnit.SECONDS);
        }
        Awaitility.await("every idle entity passivated")
                .atMost(Duration.ofSeconds(30))
                .until(() ->
                        nodes.stream().mapToLong(PassivationClusterTest::live).sum() == 0);
        assertThat(nodes.stream()
                        .mapToLong(n -> n.localRegion("wallet").passivations())
                        .sum())
                .isGreaterThanOrEqualTo(40);
        for (int i = 0; i < 40; i++) {
            assertThat(region.ask("i-" + i, new Wallet.Deposit(1), Wallet.Reply.class)
                            .get(10, TimeUnit.SECONDS)
                            .amount())
                    .isEqualTo(4);
        }
    }

    @Test
    void anIdlePassOverMoreEntitiesThanOneTickLooksAtReachesThemAll() throws Exception {
        // 30,000 entities: a pass looks at about 20,000 per tick, so it takes two ticks to reach the last shard
        ShardingNode node =
                cluster.startNode(s -> s.withPassivation(s.passivation().withIdleTimeout(Duration.ofMillis(400))));
        ShardRegion<Wallet> region = node.region(Wallet.class);
        int entities = 30_000;
        for (int i = 0; i < entities; i++) {
            region.tell("many-" + i, new Wallet.Deposit(1));
        }
        Awaitility.await("all entities started")
                .atMost(Duration.ofSeconds(60))
                .until(() -> live(node) + node.localRegion("wallet").passivations() >= entities);
        Awaitility.await("every idle entity passivated")
                .atMost(Duration.ofSeconds(60))
                .until(() -> live(node) == 0);
        assertThat(node.localRegion("wallet").passivations()).isGreaterThanOrEqualTo(entities);
        assertThat(region.ask("many-29999", new Wallet.Deposit(1), Wallet.Reply.class)
                        .get(10, TimeUnit.SECONDS)
                        .amount())
                .isEqualTo(2);
    }

    @Test
    void beyondTheLimitTheLeastRecentlyUsedEntitiesArePassivated() throws Exception {
        ShardingNode node = cluster.startNode(s -> s.withPassivation(
                        s.passivation().withIdleTimeout(Duration.ZERO))
                .withEntity(
                        "wallet",
                        EntityTypeSettings.builder().activeEntityLimit(10).build()));
        assertThat(node.localRegion("wallet").activeEntityLimit())
                .as("the idle strategy with a limit of the type's own")
                .isEqualTo(10);
        ShardRegion<Wallet> region = node.region(Wallet.class);
        for (int i = 0; i < 30; i++) {
            region.ask("l-" + i, new Wallet.Deposit(1), Wallet.Reply.class).get(10, TimeUnit.SECONDS);
            if (i % 10 == 9) {
                // the coarse activity clock advances with the node's tick: let each batch be older than the next
                long t = System.currentTimeMillis();
                Awaitility.await().pollInterval(Duration.ofMillis(10)).until(() -> System.currentTimeMillis() > t + 60);
            }
        }
        Awaitility.await("at most 10 live entities")
                .atMost(Duration.ofSeconds(30))
                .until(() -> live(node) <= 10);
        List<String> alive = node.localRegion("wallet").entityIds().values().stream()
                .flatMap(List::stream)
                .toList();
        assertThat(alive).as("the most recently used stay").allMatch(id -> Integer.parseInt(id.substring(2)) >= 20);
        assertThat(region.ask("l-0", new Wallet.Read(), Wallet.Reply.class)
                        .get(10, TimeUnit.SECONDS)
                        .amount())
                .isEqualTo(1);
    }

    /** Lets the node's coarse activity clock pass, so that the next messages are later than the ones before. */
    private static void nextClockStep() {
        long t = System.currentTimeMillis();
        Awaitility.await().pollInterval(Duration.ofMillis(10)).until(() -> System.currentTimeMillis() > t + 60);
    }

    private static void send(ShardRegion<Wallet> region, String id, int messages) throws Exception {
        for (int i = 0; i < messages; i++) {
            region.ask(id, new Wallet.Deposit(1), Wallet.Reply.class).get(10, TimeUnit.SECONDS);
        }
    }

    private ShardingNode limitedNode(PassivationStrategy strategy, int limit) {
        return cluster.startNode(s -> s.withPassivation(
                        s.passivation().withActiveEntityLimit(limit).withIdleTimeout(Duration.ZERO))
                .withEntity(
                        "wallet",
                        EntityTypeSettings.builder().passivation(strategy).build()));
    }

    private Set<String> aliveOnceWithin(ShardingNode node, int limit) {
        Awaitility.await("at most " + limit + " live entities")
                .atMost(Duration.ofSeconds(30))
                .until(() -> live(node) <= limit);
        return node.localRegion("wallet").entityIds().values().stream()
                .flatMap(List::stream)
                .collect(java.util.stream.Collectors.toSet());
    }

    private static final Set<String> HOT = Set.of("h-0", "h-1", "h-2", "h-3", "h-4");

    @ParameterizedTest
    @EnumSource(
            value = PassivationStrategy.class,
            names = {"LEAST_RECENTLY_USED", "MOST_RECENTLY_USED", "LEAST_FREQUENTLY_USED"})
    void hotEntitiesUsedBeforeColdOnesStayUnlessTheStrategyIsLeastRecentlyUsed(PassivationStrategy strategy)
            throws Exception {
        ShardingNode node = limitedNode(strategy, 10);
        ShardRegion<Wallet> region = node.region(Wallet.class);
        for (String hot : HOT) {
            send(region, hot, 5);
        }
        nextClockStep();
        for (int i = 0; i < 10; i++) {
            send(region, "c-" + i, 1);
        }
        nextClockStep();
        Set<String> alive = aliveOnceWithin(node, 10);
        if (strategy == PassivationStrategy.LEAST_RECENTLY_USED) {
            assertThat(alive).as("the hot ones were used least recently").doesNotContainAnyElementsOf(HOT);
        } else {
            assertThat(alive).as("%s keeps the hot ones", strategy).containsAll(HOT);
        }
        assertThat(region.ask("h-0", new Wallet.Read(), Wallet.Reply.class)
                        .get(10, TimeUnit.SECONDS)
                        .amount())
                .isEqualTo(5);
    }

    @ParameterizedTest
    @EnumSource(
            value = PassivationStrategy.class,
            names = {"LEAST_RECENTLY_USED", "MOST_RECENTLY_USED", "LEAST_FREQUENTLY_USED"})
    void entitiesUsedLastGoFirstOnlyUnderMostRecentlyUsed(PassivationStrategy strategy) throws Exception {
        ShardingNode node = limitedNode(strategy, 10);
        ShardRegion<Wallet> region = node.region(Wallet.class);
        for (int i = 0; i < 10; i++) {
            send(region, "c-" + i, 1);
        }
        nextClockStep();
        for (String late : HOT) {
            send(region, late, 1);
        }
        nextClockStep();
        Set<String> alive = aliveOnceWithin(node, 10);
        if (strategy == PassivationStrategy.MOST_RECENTLY_USED) {
            assertThat(alive).as("the last used go first").doesNotContainAnyElementsOf(HOT);
        } else {
            assertThat(alive)
                    .as("%s keeps the last used (equal counts)", strategy)
                    .containsAll(HOT);
        }
    }

    @Test
    void theStrategyAndTheLimitChangeWhileTheNodeRuns() throws Exception {
        ShardingNode node =
                cluster.startNode(s -> s.withPassivation(s.passivation().withIdleTimeout(Duration.ZERO)));
        ShardRegion<Wallet> region = node.region(Wallet.class);
        assertThat(node.localRegion("wallet").passivationStrategy()).isEqualTo(PassivationStrategy.IDLE);
        assertThat(node.localRegion("wallet").activeEntityLimit()).isZero();
        for (int i = 0; i < 20; i++) {
            send(region, "r-" + i, 1);
        }
        assertThat(live(node)).isEqualTo(20);
        node.localRegion("wallet").changePassivation(PassivationStrategy.LEAST_FREQUENTLY_USED, 8);
        assertThat(node.localRegion("wallet").passivationStrategy())
                .isEqualTo(PassivationStrategy.LEAST_FREQUENTLY_USED);
        assertThat(node.localRegion("wallet").activeEntityLimit()).isEqualTo(8);
        aliveOnceWithin(node, 8);
        node.localRegion("wallet").changePassivation(null, 0);
        for (int i = 0; i < 20; i++) {
            send(region, "r-" + i, 1);
        }
        assertThat(live(node)).as("no limit any more").isEqualTo(20);
        assertThat(region.ask("r-3", new Wallet.Read(), Wallet.Reply.class)
                        .get(10, TimeUnit.SECONDS)
                        .amount())
                .as("state kept through passivation")
                .isEqualTo(2);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> node.localRegion("wallet").changePassivation(null, -1))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> node.localRegion("nosuch").changePassivation(null, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
