package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityTypeSettings;
import dev.sharding.ShardingNode;
import dev.sharding.test.Counter;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A proxy-only region hosts nothing and routes everything; with no hosting region in the cluster, messages wait in
 * the buffer until one joins.
 */
class ProxyOnlyClusterTest {

    private static final EntityTypeSettings PROXY =
            EntityTypeSettings.builder().proxyOnly(true).build();

    private final TestCluster cluster = TestCluster.of(Counter.type());

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void proxyOnlyNodeRoutesEverythingAndHostsNothing() throws Exception {
        ShardingNode proxy = cluster.startNode(s -> s.withEntity("counter", PROXY));
        assertThat(proxy.localRegion("counter").proxyOnly()).isTrue();

        // nobody hosts yet: the ask waits in the proxy's buffer
        CompletableFuture<Counter.Total> early = proxy.region(Counter.class)
                .ask("early", new Counter.Add(3), Counter.Total.class, Duration.ofSeconds(30));
        ShardingNode host = cluster.startNode();
        ShardingNode host2 = cluster.startNode();
        assertThat(early.get(30, TimeUnit.SECONDS)).satisfies(t -> {
            assertThat(t.total()).isEqualTo(3);
            assertThat(t.node()).isIn(host.nodeName(), host2.nodeName());
        });

        for (int i = 0; i < 100; i++) {
            Counter.Total t = proxy.region(Counter.class)
                    .ask("p-" + i, new Counter.Add(1), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS);
            assertThat(t.node()).isIn(host.nodeName(), host2.nodeName());
        }
        assertThat(proxy.localRegion("counter").entityIds()).isEmpty();
        assertThat(host.localRegion("counter").entityIds()).isNotEmpty();
        assertThat(host2.localRegion("counter").entityIds()).isNotEmpty();
    }
}
