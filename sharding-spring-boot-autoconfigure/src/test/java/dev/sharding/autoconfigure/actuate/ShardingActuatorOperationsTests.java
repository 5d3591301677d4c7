package dev.sharding.autoconfigure.actuate;

import static dev.sharding.autoconfigure.bank.BankCluster.REPLY_SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityType;
import dev.sharding.ShardingNode;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint.ClusterDescriptor;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint.MemberDescriptor;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint.OperationResult;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint.RebalanceDescriptor;
import dev.sharding.autoconfigure.bank.Account;
import dev.sharding.autoconfigure.bank.BankCluster;
import dev.sharding.autoconfigure.bank.Payments;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.json.JsonMapper;

/**
 * The endpoint's write operations, and what the endpoint and the health indicator show while a node leaves.
 */
class ShardingActuatorOperationsTests {

    private final BankCluster cluster = new BankCluster();

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void writeOperationsAnswerWithWhatWasDoneOrAClearError() throws Exception {
        ConfigurableApplicationContext n1 = cluster.start("n1");
        ConfigurableApplicationContext n2 = cluster.start("n2");
        Account.Balance before = n1.getBean(Payments.class).deposit("op-1", 5).get(REPLY_SECONDS, TimeUnit.SECONDS);
        String other = before.node().equals("n1") ? "n2" : "n1";
        ShardingEndpoint endpoint = n2.getBean(ShardingEndpoint.class);

        WebEndpointResponse<OperationResult> rebalance = endpoint.rebalance();
        assertThat(rebalance.getStatus()).isEqualTo(200);
        assertThat(rebalance.getBody().accepted()).isTrue();

        WebEndpointResponse<OperationResult> unknownType = endpoint.handOff("nosuch", 1, null);
        assertThat(unknownType.getStatus()).isEqualTo(400);
        assertThat(unknownType.getBody()).isEqualTo(new OperationResult(false, "Unknown entity type nosuch"));
        int shard = EntityType.shardOf("op-1", 20);
        assertThat(endpoint.handOff("account", shard, "n7").getBody().message()).isEqualTo("Unknown node n7");

        WebEndpointResponse<OperationResult> moved = endpoint.handOff("account", shard, other);
        assertThat(moved.getStatus()).as(moved.getBody().message()).isEqualTo(200);
        Awaitility.await("account moved to " + other)
                .atMost(Duration.ofSeconds(30))
                .until(() -> n1.getBean(Payments.class)
                        .balance("op-1")
                        .get(REPLY_SECONDS, TimeUnit.SECONDS)
                        .node()
                        .equals(other));
    }

    @Test
    void aRebalanceIsListedWithItsRoundsAndMovesInTheJson() throws Exception {
        // no periodic round: the test's own is the only one
        ConfigurableApplicationContext n1 = cluster.start("n1", "--sharding.rebalance-interval=10m");
        Payments payments = n1.getBean(Payments.class);
        for (int i = 0; i < 40; i++) {
            payments.deposit("r-" + i, 1).get(REPLY_SECONDS, TimeUnit.SECONDS);
        }
        ConfigurableApplicationContext n2 = cluster.start("n2", "--sharding.rebalance-interval=10m");
        ShardingEndpoint endpoint = n2.getBean(ShardingEndpoint.class);
        assertThat(endpoint.cluster().rebalances())
                .as("no round moved anything yet")
                .isEmpty();

        WebEndpointResponse<OperationResult> rebalance = endpoint.rebalance();
        assertThat(rebalance.getBody().message()).startsWith("Rebalance started: moving");
        Awaitility.await("the round's shards placed on n2, as n2 sees it")
                .atMost(Duration.ofSeconds(30))
                .until(() -> {
                    List<RebalanceDescriptor> rounds = endpoint.cluster().rebalances();
                    return rounds.size() == 1
                            && rounds.get(0).moved() > 0
                            && rounds.get(0)
                                    .from()
                                    .equals(Map.of("n1", rounds.get(0).moved()))
                            && rounds.get(0)
                                    .to()
                                    .equals(Map.of("n2", rounds.get(0).moved()));
                });
        RebalanceDescriptor round = endpoint.cluster().rebalances().get(0);
        assertThat(round.startedAt()).isBetween(Instant.now().minusSeconds(60), Instant.now());

        String json = JsonMapper.builder().build().writeValueAsString(endpoint.cluster());
        assertThat(json)
                .contains(
                        "\"rebalances\":[{\"startedAt\":\"",
                        "\"rounds\":" + round.rounds() + ",\"moved\":" + round.moved() + ",\"from\":{\"n1\":"
                                + round.moved() + "},\"to\":{\"n2\":",
                        "\"numberOfShards\":{\"account\":20");
    }

    @Test
    void aLeavingNodeIsOutOfServiceAndListedAsLeavingWhileItHandsOffItsShards() throws Exception {
        ConfigurableApplicationContext n1 = cluster.start("n1");
        ConfigurableApplicationContext n2 = cluster.start("n2");
        Payments payments = n1.getBean(Payments.class);
        String onN2 = null;
        for (int i = 0; onN2 == null; i++) {
            Account.Balance b = payments.deposit("l-" + i, 1).get(REPLY_SECONDS, TimeUnit.SECONDS);
            if (b.node().equals("n2")) {
                onN2 = b.id();
            }
        }
        // a slow asynchronous deposit keeps the entity, and so the handoff of its shard, busy for a while
        CompletableFuture<Account.Balance> slow = payments.depositLater(onN2, 10, 3000);
        CompletableFuture<Void> leaving = CompletableFuture.runAsync(n2::close);

        ShardingHealthIndicator health = n2.getBean(ShardingHealthIndicator.class);
        ShardingNode node2 = n2.getBean(ShardingNode.class);
        Awaitility.await("n2 out of service while it drains")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> node2.isLeaving() && health.health().getStatus().equals(Status.OUT_OF_SERVICE));
        Awaitility.await("n1 lists n2 as leaving, with a handoff in progress")
                .atMost(Duration.ofSeconds(10))
                .until(() -> {
                    ClusterDescriptor state = n1.getBean(ShardingEndpoint.class).cluster();
                    return state.members().stream()
                                    .anyMatch(m ->
                                            m.name().equals("n2") && m.status().equals("leaving"))
                            && !state.handoffs().isEmpty();
                });
        assertThat(slow.get(30, TimeUnit.SECONDS).balance())
                .as("the slow deposit completed before n2 left")
                .isEqualTo(11);
        leaving.get(60, TimeUnit.SECONDS);
        cluster.awaitConverged();
        Account.Balance after = payments.balance(onN2).get(REPLY_SECONDS, TimeUnit.SECONDS);
        assertThat(after.node()).isEqualTo("n1");
        assertThat(n1.getBean(ShardingEndpoint.class).cluster().members())
                .extracting(MemberDescriptor::name)
                .containsExactly("n1");
    }
}
