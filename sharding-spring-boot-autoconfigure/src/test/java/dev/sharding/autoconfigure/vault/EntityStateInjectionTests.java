package dev.sharding.autoconfigure.vault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityType;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint;
import dev.sharding.autoconfigure.bank.BankCluster;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ResolvableType;

/**
 * {@code EntityState<S>} constructor parameters of {@code @ShardedEntity} beans: the state class is declared from the
 * generic type, the initial value comes from the entity's {@code @InitialState} method, and the state moves with its
 * shard between two application contexts.
 */
class EntityStateInjectionTests {

    private final BankCluster cluster = new BankCluster(VaultApplication.class);

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void stateIsInjectedByItsGenericTypeAndMovesWithTheShard() throws Exception {
        ConfigurableApplicationContext n1 = cluster.start("n1");
        ConfigurableApplicationContext n2 = cluster.start("n2");
        @SuppressWarnings("unchecked")
        EntityType<Vault> type = (EntityType<Vault>)
                n1.getBeanProvider(ResolvableType.forClassWithGenerics(EntityType.class, Vault.class))
                        .getObject();
        assertThat(type.stateType()).isEqualTo(Vault.Contents.class);

        @SuppressWarnings("unchecked")
        ShardRegion<Vault> vaults = (ShardRegion<Vault>)
                n1.getBeanProvider(ResolvableType.forClassWithGenerics(ShardRegion.class, Vault.class))
                        .getObject();
        Vault.Reply first =
                vaults.ask("v-1", new Vault.Put(10), Vault.Reply.class).get(10, TimeUnit.SECONDS);
        assertThat(first.coins())
                .as("initial value from @InitialState, plus 10")
                .isEqualTo(11);

        String other = first.node().equals("n1") ? "n2" : "n1";
        int shard = EntityType.shardOf("v-1", 10);
        ShardingNode node = n2.getBean(ShardingNode.class);
        assertThat(node.admin()
                        .handOff("vault", shard, other)
                        .get(10, TimeUnit.SECONDS)
                        .accepted())
                .isTrue();
        Awaitility.await("vault moved")
                .atMost(Duration.ofSeconds(30))
                .until(() -> vaults.ask("v-1", new Vault.Look(), Vault.Reply.class)
                        .get(10, TimeUnit.SECONDS)
                        .node()
                        .equals(other));
        assertThat(vaults.ask("v-1", new Vault.Put(5), Vault.Reply.class)
                        .get(10, TimeUnit.SECONDS)
                        .coins())
                .as("the state moved with the shard")
                .isEqualTo(16);
    }

    @Test
    void theEndpointReportsPassivationsPerType() throws Exception {
        ConfigurableApplicationContext n1 = cluster.start("n1", "--sharding.passivation.idle-timeout=200ms");
        @SuppressWarnings("unchecked")
        ShardRegion<Vault> vaults = (ShardRegion<Vault>)
                n1.getBeanProvider(ResolvableType.forClassWithGenerics(ShardRegion.class, Vault.class))
                        .getObject();
        for (int i = 0; i < 5; i++) {
            vaults.ask("idle-" + i, new Vault.Put(1), Vault.Reply.class).get(10, TimeUnit.SECONDS);
        }
        ShardingEndpoint endpoint = n1.getBean(ShardingEndpoint.class);
        Awaitility.await("idle vaults passivated and reported")
                .atMost(Duration.ofSeconds(30))
                .until(() ->
                        endpoint.cluster().entityTypes().get("vault").get(0).passivations() >= 5);
        assertThat(endpoint.cluster().entityTypes().get("vault").get(0).entityCount())
                .isZero();
    }
}
