package dev.sharding.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.boot.test.counter.Counter;
import dev.sharding.boot.test.counter.CounterApplication;
import dev.sharding.spi.ShardingStore;
import dev.sharding.store.InMemoryShardingStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

/**
 * {@link AutoConfigureShardingTest} as a user's test has it: the node runs on the in-JVM stack with an in-memory
 * store, under a cluster name of its own, so another test context of the same JVM (made the same way) forms a cluster
 * of its own rather than joining this one; the test's own properties still win.
 */
@SpringBootTest(classes = CounterApplication.class, properties = "sharding.node-name=annotated")
@AutoConfigureShardingTest
class AutoConfigureShardingTestTests {

    @Autowired
    private ShardRegion<Counter> counters;

    @Autowired
    private ShardingNode node;

    @Autowired
    private ShardingStore store;

    @Autowired
    private Environment environment;

    @Test
    void theNodeIsATestNodeOfItsOwnCluster() throws Exception {
        assertThat(environment.getProperty("sharding.jgroups.config")).isEqualTo(ShardingTestProperties.IN_JVM_STACK);
        assertThat(environment.getProperty("sharding.cluster-name"))
                .as("over the application's configuration file")
                .startsWith("test-");
        assertThat(environment.getProperty(ShardingTestProperties.SERIALIZE_LOCAL_MESSAGES))
                .isEqualTo("true");
        assertThat(store)
                .as("over the application's sharding.store.type=jdbc")
                .isInstanceOf(InMemoryShardingStore.class);
        assertThat(node.nodeName()).as("the test's own property wins").isEqualTo("annotated");
        assertThat(counters.ask("c-1", new Counter.Add(3), Counter.Total.class)
                        .get(30, TimeUnit.SECONDS)
                        .total())
                .isEqualTo(3);
    }

    @Test
    void anotherTestContextOfTheJvmFormsAClusterOfItsOwn() {
        ShardingTestContextCustomizer customizer = new ShardingTestContextCustomizer(true, true);
        try (ConfigurableApplicationContext other = new SpringApplicationBuilder(CounterApplication.class)
                .initializers(context -> customizer.customizeContext(context, null))
                .run("--sharding.node-name=other")) {
            ShardingNode otherNode = other.getBean(ShardingNode.class);
            assertThat(other.getEnvironment().getProperty("sharding.cluster-name"))
                    .startsWith("test-")
                    .isNotEqualTo(environment.getProperty("sharding.cluster-name"));
            Awaitility.await("the other node registered in its own cluster")
                    .atMost(Duration.ofSeconds(30))
                    .until(otherNode::isRegistered);
            // both nodes run on the same in-JVM stack: had they one cluster name, they would have merged by now
            assertThat(otherNode.members()).hasSize(1);
            assertThat(node.members()).hasSize(1);
        }
    }
}
