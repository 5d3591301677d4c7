package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.boot.test.OwnerWatch;
import dev.sharding.boot.test.ShardingTestCluster;
import dev.sharding.boot.test.ShardingTestNode;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Three nodes of the sample in one JVM (the example of docs/testing.md): an account is one entity whichever node is
 * asked, it lives on the node its answers name, and it keeps its balance when that node stops gracefully, with no
 * moment at which two nodes served it.
 */
class AccountClusterTest {

    private final JsonHttp http = new JsonHttp(Duration.ofSeconds(20));

    private JsonNode deposit(ShardingTestNode node, String id, long amount) {
        JsonHttp.Answer a = http.postJson(
                "http://127.0.0.1:" + node.port() + "/accounts/" + id + "/deposit", "{\"amount\": " + amount + "}");
        assertThat(a.status())
                .as("deposit %d into %s through %s: %s", amount, id, node, a)
                .isEqualTo(200);
        return a.body();
    }

    private long balance(ShardingTestNode node, String id) {
        JsonHttp.Answer a = http.get("http://127.0.0.1:" + node.port() + "/accounts/" + id);
        assertThat(a.status()).as("balance of %s through %s: %s", id, node, a).isEqualTo(200);
        return a.body().get("balance").longValue();
    }

    @Test
    void anAccountIsOneEntityOnAnyNodeAndKeepsItsBalanceWhenItsNodeStops() {
        try (ShardingTestCluster cluster =
                        ShardingTestCluster.of(SampleApplication.class).start(3);
                OwnerWatch owners = cluster.watchOwners()) {
            String first = deposit(cluster.node(1), "alice", 5).get("node").asString();
            JsonNode second = deposit(cluster.node(3), "alice", 7);
            assertThat(second.get("balance").longValue()).isEqualTo(12);
            assertThat(second.get("node").asString()).as("the same entity").isEqualTo(first);
            ShardingTestNode owner = cluster.awaitEntityStarted("account", "alice");
            assertThat(owner.name()).isEqualTo(first);

            cluster.stop(owner);
            cluster.awaitView();
            ShardingTestNode survivor = cluster.running().get(0);
            // the graceful stop handed the shard off with the entity's state
            Awaitility.await("the balance through " + survivor)
                    .atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> balance(survivor, "alice") == 12);
            assertThat(owners.violations())
                    .as("entities alive on two nodes at once")
                    .isEmpty();
        }
    }
}
