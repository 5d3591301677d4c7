package dev.sharding.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityType;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.autoconfigure.ShardingAutoConfiguration;
import dev.sharding.autoconfigure.bank.BankCluster;
import dev.sharding.autoconfigure.vault.Vault;
import dev.sharding.autoconfigure.vault.VaultApplication;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.Search;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ResolvableType;

/**
 * The node's Micrometer meters in an application with a {@link MeterRegistry}: asks by outcome and by whether they
 * crossed the network, tells, state writes and store transactions, handoffs, and the gauges; and no meter and no
 * failure in an application without a registry.
 */
class ShardingMetricsTests {

    private final BankCluster cluster = new BankCluster(VaultApplication.class);

    @AfterEach
    void stop() {
        cluster.close();
    }

    @SuppressWarnings("unchecked")
    private static ShardRegion<Vault> vaults(ConfigurableApplicationContext context) {
        return (ShardRegion<Vault>)
                context.getBeanProvider(ResolvableType.forClassWithGenerics(ShardRegion.class, Vault.class))
                        .getObject();
    }

    private static Timer asks(MeterRegistry registry, String outcome, boolean remote) {
        return registry.get("sharding.asks")
                .tags("type", "vault", "outcome", outcome, "remote", String.valueOf(remote))
                .timer();
    }

    private static double gauge(ConfigurableApplicationContext context, String name) {
        return Search.in(context.getBean(MeterRegistry.class)).name(name).gauges().stream()
                .mapToDouble(g -> g.value())
                .sum();
    }

    @org.junit.jupiter.api.io.TempDir
    java.nio.file.Path dir;

    @Test
    void asksWritesHandoffsAndGaugesAreMetered() throws Exception {
        // the two nodes share the embedded H2 file database: no DataSource of the application's
        String[] db = {
            "--sharding.store.type=jdbc",
            "--sharding.store.embedded-path=" + dir.resolve("sharding"),
            "--spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"
        };
        ConfigurableApplicationContext n1 = cluster.start("n1", db);
        ConfigurableApplicationContext n2 = cluster.start("n2", db);
        MeterRegistry registry = n1.getBean(MeterRegistry.class);
        ShardRegion<Vault> vaults = vaults(n1);

        int remote = 0;
        List<String> ids =
                java.util.stream.IntStream.range(0, 30).mapToObj(i -> "m-" + i).toList();
        for (String id : ids) {
            if (vaults.ask(id, new Vault.Put(1), Vault.Reply.class)
                    .get(10, TimeUnit.SECONDS)
                    .node()
                    .equals("n2")) {
                remote++;
            }
        }
        assertThat(remote).as("some on each node").isBetween(1, 29);
        assertThat(asks(registry, "success", true).count()).isEqualTo(remote);
        assertThat(asks(registry, "success", false).count()).isEqualTo(ids.size() - remote);
        assertThat(asks(registry, "timeout", true).count())
                .as("every outcome registered at zero")
                .isZero();
        assertThat(asks(registry, "success", true).totalTime(TimeUnit.NANOSECONDS))
                .isPositive();

        vaults.tell("m-0", new Vault.Put(1));
        assertThat(registry.get("sharding.tells").tag("type", "vault").counter().count())
                .isEqualTo(1);

        Awaitility.await("the tell stored").atMost(Duration.ofSeconds(10)).until(() -> writes(n1) + writes(n2) == 31);
        assertThat(registry.get("sharding.store.write")
                        .tags("type", "vault", "outcome", "failure")
                        .timer()
                        .count())
                .isZero();
        assertThat(registry.get("sharding.store.batch.size").summary().totalAmount())
                .as("every write of n1 in one of its store's transactions")
                .isGreaterThanOrEqualTo(writes(n1));

        assertThat(gauge(n1, "sharding.members")).isEqualTo(2);
        assertThat(gauge(n1, "sharding.coordinator") + gauge(n2, "sharding.coordinator"))
                .isEqualTo(1);
        assertThat(gauge(n1, "sharding.shards.hosted") + gauge(n2, "sharding.shards.hosted"))
                .isEqualTo(10);
        assertThat(gauge(n1, "sharding.entities.active") + gauge(n2, "sharding.entities.active"))
                .isEqualTo(ids.size());
        assertThat(gauge(n1, "sharding.buffered")).isZero();
        assertThat(gauge(n1, "sharding.backpressure.queued.bytes")).isGreaterThanOrEqualTo(0);
        assertThat(n1.getBean(MeterRegistry.class)
                        .get("sharding.backpressure.refused")
                        .functionCounter()
                        .count())
                .isZero();
        assertThat(n1.getBean(MeterRegistry.class)
                        .get("sharding.backpressure.suspected")
                        .functionCounter()
                        .count())
                .isZero();

        int shard = EntityType.shardOf("m-0", 10);
        ShardingNode node1 = n1.getBean(ShardingNode.class);
        String owner = vaults.ask("m-0", new Vault.Look(), Vault.Reply.class)
                .get(10, TimeUnit.SECONDS)
                .node();
        ConfigurableApplicationContext ownerContext = owner.equals("n1") ? n1 : n2;
        assertThat(node1.admin()
                        .handOff("vault", shard, owner.equals("n1") ? "n2" : "n1")
                        .get(10, TimeUnit.SECONDS)
                        .accepted())
                .isTrue();
        Awaitility.await("the handoff timed on the old owner")
                .atMost(Duration.ofSeconds(30))
                .until(() -> ownerContext
                                .getBean(MeterRegistry.class)
                                .get("sharding.handoffs")
                                .tag("type", "vault")
                                .timer()
                                .count()
                        == 1);
    }

    private static long writes(ConfigurableApplicationContext context) {
        return context.getBean(MeterRegistry.class)
                .get("sharding.store.write")
                .tags("type", "vault", "outcome", "success")
                .timer()
                .count();
    }

    /** A one-node context of the vault application with the meters' auto-configuration, without a registry. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(ShardingAutoConfiguration.class, ShardingMetricsAutoConfiguration.class))
            .withUserConfiguration(VaultApplication.class)
            .withPropertyValues(
                    "sharding.cluster-name=metrics-" + UUID.randomUUID(),
                    "sharding.jgroups.config=shared-loopback.xml",
                    "sharding.store.type=memory");

    @Test
    void withoutARegistryThereIsNoMeterAndTheNodeRuns() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(ShardingNode.class);
            assertThat(context).doesNotHaveBean(MicrometerShardingMetrics.class);
            assertThat(context).doesNotHaveBean(ShardingNodeMeters.class);
        });
    }

    @Test
    void withARegistryTheMetersExistBeforeAnyMessage() {
        runner.withConfiguration(AutoConfigurations.of(
                        MetricsAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(MicrometerShardingMetrics.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    for (String outcome : List.of("success", "timeout", "unreachable", "rejected", "failed")) {
                        assertThat(asks(registry, outcome, false).count()).isZero();
                    }
                    for (String reason : List.of("buffer-full", "rejected", "partitioned", "stopped")) {
                        assertThat(registry.get("sharding.dropped")
                                        .tags("type", "vault", "reason", reason)
                                        .counter()
                                        .count())
                                .isZero();
                    }
                    assertThat(registry.get("sharding.passivations")
                                    .tag("type", "vault")
                                    .counter()
                                    .count())
                            .isZero();
                    assertThat(registry.get("sharding.rebalance.rounds")
                                    .counter()
                                    .count())
                            .isZero();
                    assertThat(registry.get("sharding.shards.hosted")
                                    .tag("type", "vault")
                                    .gauge()
                                    .value())
                            .isZero();
                    assertThat(registry.get("sharding.members").gauge()).isNotNull();
                });
    }
}
