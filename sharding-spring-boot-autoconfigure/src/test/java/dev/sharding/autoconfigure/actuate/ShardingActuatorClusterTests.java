package dev.sharding.autoconfigure.actuate;

import static dev.sharding.autoconfigure.bank.BankCluster.REPLY_SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityType;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint.ClusterDescriptor;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint.LocalRegionDescriptor;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint.MemberDescriptor;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint.RegionDescriptor;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint.ShardDescriptor;
import dev.sharding.autoconfigure.bank.Account;
import dev.sharding.autoconfigure.bank.BankCluster;
import dev.sharding.autoconfigure.bank.Payments;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.json.JsonMapper;

/**
 * The endpoint and the health indicator in a cluster of two application contexts in one JVM.
 */
class ShardingActuatorClusterTests {

    private static final int ACCOUNTS = 12;

    private static final BankCluster cluster = new BankCluster();

    private static ConfigurableApplicationContext n1;

    private static ConfigurableApplicationContext n2;

    /** The node hosting each account, from the replies. */
    private static final Map<String, String> homes = new HashMap<>();

    @BeforeAll
    static void startClusterWithAccounts() throws Exception {
        n1 = cluster.start("n1");
        n2 = cluster.start("n2");
        Payments payments = n1.getBean(Payments.class);
        for (int i = 0; i < ACCOUNTS; i++) {
            Account.Balance balance = payments.deposit("acc-" + i, 1).get(REPLY_SECONDS, TimeUnit.SECONDS);
            homes.put(balance.id(), balance.node());
        }
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void clusterListsEveryMemberAndEveryMembersRegions() {
        for (ConfigurableApplicationContext context : List.of(n1, n2)) {
            ClusterDescriptor state = context.getBean(ShardingEndpoint.class).cluster();
            String self = context.getBean(ShardingNode.class).nodeName();
            assertThat(state.running()).isTrue();
            assertThat(state.node().name()).isEqualTo(self);
            assertThat(state.coordinator()).isNotNull();
            assertThat(state.coordinator().name())
                    .as("the oldest member coordinates")
                    .isEqualTo("n1");
            assertThat(state.members()).extracting(MemberDescriptor::name).containsExactly("n1", "n2");
            assertThat(state.members()).extracting(MemberDescriptor::status).containsOnly("up");
            assertThat(state.members())
                    .extracting(MemberDescriptor::id)
                    .doesNotHaveDuplicates()
                    .doesNotContain("");
            assertThat(state.entityTypes()).containsOnlyKeys("account", "cart");

            List<RegionDescriptor> accounts = state.entityTypes().get("account");
            assertThat(accounts).extracting(RegionDescriptor::member).containsExactlyInAnyOrder("n1", "n2");
            for (RegionDescriptor region : accounts) {
                assertThat(region.answered()).isTrue();
                assertThat(region.proxyOnly()).isFalse();
                long hosted =
                        homes.values().stream().filter(region.member()::equals).count();
                assertThat(region.entityCount())
                        .as("accounts on %s", region.member())
                        .isEqualTo(hosted);
                assertThat(region.shardCount()).isEqualTo(region.shards().size());
                assertThat(region.shards().keySet()).allMatch(shard -> shard >= 0 && shard < 20);
            }
            assertThat(state.entityTypes().get("cart"))
                    .extracting(RegionDescriptor::entityCount)
                    .containsOnly(0);
        }
    }

    @Test
    void regionListsTheLiveEntitiesOfThisNodeByShard() {
        for (ConfigurableApplicationContext context : List.of(n1, n2)) {
            String self = context.getBean(ShardingNode.class).nodeName();
            LocalRegionDescriptor region =
                    context.getBean(ShardingEndpoint.class).region("account");
            assertThat(region).isNotNull();
            assertThat(region.type()).isEqualTo("account");
            assertThat(region.node()).isEqualTo(self);
            assertThat(region.proxyOnly()).isFalse();
            Map<String, Integer> expected = homes.entrySet().stream()
                    .filter(e -> e.getValue().equals(self))
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> EntityType.shardOf(e.getKey(), 20)));
            Map<String, Integer> listed = new HashMap<>();
            for (ShardDescriptor shard : region.shards()) {
                shard.entities().forEach(id -> listed.put(id, shard.id()));
            }
            assertThat(listed).isEqualTo(expected);
        }
    }

    @Test
    void unknownEntityTypeIsNull() {
        assertThat(n1.getBean(ShardingEndpoint.class).region("no-such-type")).isNull();
    }

    @Test
    void descriptorsSerializeAsJson() {
        JsonMapper mapper = JsonMapper.builder().build();
        String cluster =
                mapper.writeValueAsString(n2.getBean(ShardingEndpoint.class).cluster());
        assertThat(cluster)
                .contains(
                        "\"coordinator\":{\"name\":\"n1\"",
                        "\"status\":\"up\"",
                        "\"entityTypes\"",
                        "\"answered\":true");
        String region =
                mapper.writeValueAsString(n2.getBean(ShardingEndpoint.class).region("account"));
        assertThat(region).contains("\"type\":\"account\"", "\"node\":\"n2\"", "\"shards\":[{\"id\":");
    }

    @Test
    void healthIsUpWithDetailsOnceRegistered() {
        for (ConfigurableApplicationContext context : List.of(n1, n2)) {
            Health health = context.getBean(ShardingHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails())
                    .containsEntry("node", context.getBean(ShardingNode.class).nodeName())
                    .containsEntry("coordinator", "n1")
                    .containsEntry("members", 2);
            IndicatedHealthDescriptor viaEndpoint = (IndicatedHealthDescriptor)
                    context.getBean(HealthEndpoint.class).healthForPath("sharding");
            assertThat(viaEndpoint.getStatus()).isEqualTo(Status.UP);
        }
    }

    @Test
    void healthIsDownBeforeTheNodeHasJoined() {
        ShardingNode unstarted = ShardingNode.builder(
                        ShardingSettings.defaults().withNodeName("unstarted"))
                .build();
        Health health = new ShardingHealthIndicator(unstarted).health();
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails()).containsEntry("members", 0).doesNotContainKey("coordinator");
    }
}
