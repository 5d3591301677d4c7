package dev.sharding.autoconfigure.actuate;

import static dev.sharding.autoconfigure.bank.BankCluster.REPLY_SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.sharding.ClusterPartitionedException;
import dev.sharding.ShardingNode;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint.ClusterDescriptor;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint.MemberDescriptor;
import dev.sharding.autoconfigure.bank.BankCluster;
import dev.sharding.autoconfigure.bank.Payments;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A node the coordinator refuses for good (its entity type has another number of shards than the cluster's) says so
 * in its health, DOWN with the reason, and fails every call with that reason, while the cluster goes on; the endpoint
 * of every node lists it as refused, with the reason.
 */
class RefusedNodeHealthTests {

    private final BankCluster cluster = new BankCluster();

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void aNodeRefusedForAnotherNumberOfShardsIsDownNamingWhyFailsItsCallsSayingAndIsListedRefused() throws Exception {
        ConfigurableApplicationContext n1 = cluster.start("n1");
        ConfigurableApplicationContext n2 = cluster.launch("n2", "--sharding.entities.account.number-of-shards=7");
        ShardingNode refused = n2.getBean(ShardingNode.class);
        Awaitility.await("n2 refused by the coordinator")
                .atMost(Duration.ofSeconds(20))
                .until(() -> refused.refusedReason() != null);

        Health health = n2.getBean(ShardingHealthIndicator.class).health(true);
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(String.valueOf(health.getDetails().get("refused")))
                .contains("number-of-shards")
                .contains("7")
                .contains("20");
        assertThat(health.getDetails()).doesNotContainKey("partitioned");

        assertThatThrownBy(() -> n2.getBean(Payments.class).deposit("acc-1", 1).get(REPLY_SECONDS, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(ClusterPartitionedException.class)
                .hasMessageContaining("refused");
        // the cluster goes on without it
        assertThat(n1.getBean(Payments.class)
                        .deposit("acc-1", 1)
                        .get(REPLY_SECONDS, TimeUnit.SECONDS)
                        .balance())
                .isEqualTo(1);
        assertThat(n1.getBean(ShardingHealthIndicator.class).health(true).getStatus())
                .isEqualTo(Status.UP);

        // the endpoint of every node, the coordinator's and the refused node's own, lists it refused and why
        for (ConfigurableApplicationContext via : List.of(n1, n2)) {
            ClusterDescriptor state = via.getBean(ShardingEndpoint.class).cluster();
            assertThat(state.members())
                    .as(
                            "members as %s lists them",
                            via.getBean(ShardingNode.class).nodeName())
                    .extracting(MemberDescriptor::name, MemberDescriptor::status)
                    .containsExactly(tuple("n1", "up"), tuple("n2", "refused"));
            assertThat(state.members().get(1).refusedReason())
                    .contains("number-of-shards")
                    .contains("7")
                    .contains("20");
            assertThat(state.members().get(0).refusedReason()).isEmpty();
        }
    }
}
