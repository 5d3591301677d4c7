package dev.sharding.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.AppliedMessageWindow;
import dev.sharding.EntityContext;
import dev.sharding.EntityType;
import dev.sharding.EntityTypeSettings;
import dev.sharding.JgroupsSettings;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint;
import dev.sharding.autoconfigure.actuate.ShardingEndpointAutoConfiguration;
import dev.sharding.autoconfigure.actuate.ShardingHealthContributorAutoConfiguration;
import dev.sharding.autoconfigure.actuate.ShardingHealthIndicator;
import dev.sharding.autoconfigure.greeting.ExtraMessage;
import dev.sharding.autoconfigure.greeting.Greeter;
import dev.sharding.autoconfigure.greeting.GreeterConfiguration;
import dev.sharding.autoconfigure.locality.CustomerOrder;
import dev.sharding.autoconfigure.locality.CustomerShards;
import dev.sharding.autoconfigure.locality.LocalityConfiguration;
import dev.sharding.autoconfigure.scanned.ScannedConfiguration;
import dev.sharding.autoconfigure.scanned.Tally;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jgroups.JChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.Order;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * The auto-configuration in single contexts. Contexts that start form one-node clusters over SHARED_LOOPBACK, each
 * with a cluster name of its own.
 */
class ShardingAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    ShardingAutoConfiguration.class,
                    ShardingEndpointAutoConfiguration.class,
                    ShardingHealthContributorAutoConfiguration.class))
            .withPropertyValues(
                    "sharding.jgroups.config=shared-loopback.xml",
                    "sharding.retry-interval=300ms",
                    "sharding.store.type=memory",
                    "management.endpoints.web.exposure.include=sharding");

    private static String uniqueCluster() {
        return "sharding.cluster-name=autoconfig-" + UUID.randomUUID();
    }

    @Test
    void providesAStartedNodeWithItsEntityTypesRegionsEndpointAndHealth() {
        this.runner
                .withPropertyValues(uniqueCluster())
                .withUserConfiguration(GreeterConfiguration.class)
                .run(context -> {
                    assertThat(context)
                            .hasSingleBean(ShardingProperties.class)
                            .hasSingleBean(ShardingSettings.class)
                            .hasSingleBean(ShardingNode.class)
                            .hasSingleBean(ShardingLifecycle.class)
                            .hasSingleBean(ShardingEndpoint.class)
                            .hasSingleBean(ShardingHealthIndicator.class)
                            .hasBean("greeterEntityType")
                            .hasBean("greeterShardRegion");
                    ShardingNode node = context.getBean(ShardingNode.class);
                    assertThat(node.isRunning()).isTrue();
                    assertThat(node.typeNames()).containsExactly("greeter");
                    BeanDefinition entity = context.getBeanFactory().getBeanDefinition(Greeter.class.getName());
                    assertThat(entity.isPrototype()).isTrue();
                    assertThat(entity.isAutowireCandidate()).isFalse();
                    ShardRegion<?> region = (ShardRegion<?>) context.getBeanProvider(
                                    ResolvableType.forClassWithGenerics(ShardRegion.class, Greeter.class))
                            .getObject();
                    assertThat(region).isSameAs(node.region(Greeter.class));
                    Greeter.Greeting greeting = region.ask("g-1", new Greeter.Greet("Ada"), Greeter.Greeting.class)
                            .get(10, TimeUnit.SECONDS);
                    assertThat(greeting.text()).isEqualTo("Hello Ada from greeter/g-1 on " + node.nodeName());
                });
    }

    @Test
    void findsEntitiesInTheAutoConfigurationPackages() {
        this.runner
                .withPropertyValues(uniqueCluster())
                .withUserConfiguration(ScannedConfiguration.class)
                .run(context -> {
                    assertThat(context).hasBean(Tally.class.getName()).hasBean("tallyShardRegion");
                    assertThat(context.getBeanFactory()
                                    .getBeanDefinition(Tally.class.getName())
                                    .isPrototype())
                            .isTrue();
                    ShardRegion<Tally> tallies =
                            context.getBean(ShardingNode.class).region(Tally.class);
                    tallies.ask("t", new Tally.Add(2), Long.class).get(10, TimeUnit.SECONDS);
                    assertThat(tallies.ask("t", new Tally.Add(3), Long.class).get(10, TimeUnit.SECONDS))
                            .isEqualTo(5);
                    assertThat(context.getBean(ShardingNode.class)
                                    .localRegion("tally")
                                    .entityIds()
                                    .keySet())
                            .containsExactly(EntityType.shardOf("t", 8));
                });
    }

    @Test
    void usesTheShardIdFunctionBeanNamedByTheAnnotation() {
        this.runner
                .withPropertyValues(uniqueCluster())
                .withUserConfiguration(LocalityConfiguration.class)
                .run(context -> {
                    assertThat(context.getBean("customerOrderEntityType", EntityType.class)
                                    .shardIdFunction())
                            .isSameAs(context.getBean(CustomerShards.class));
                    ShardRegion<CustomerOrder> orders =
                            context.getBean(ShardingNode.class).region(CustomerOrder.class);
                    int shard = orders.ask("c7:o1", new CustomerOrder.Where(), Integer.class)
                            .get(10, TimeUnit.SECONDS);
                    assertThat(shard).isEqualTo(Math.floorMod("c7".hashCode(), 16));
                    for (int o = 2; o < 10; o++) {
                        assertThat(orders.ask("c7:o" + o, new CustomerOrder.Where(), Integer.class)
                                        .get(10, TimeUnit.SECONDS))
                                .isEqualTo(shard);
                    }
                });
    }

    @Test
    void backsOffWhenUserDefinesShardingNode() {
        this.runner
                .withPropertyValues(uniqueCluster())
                .withUserConfiguration(UserNodeConfiguration.class)
                .run(context -> {
                    assertThat(context)
                            .hasSingleBean(ShardingNode.class)
                            .hasBean("userNode")
                            .doesNotHaveBean("shardingNode");
                    assertThat(context.getBean(ShardingNode.class).nodeName()).isEqualTo("user-node");
                });
    }

    @Test
    void backsOffWhenUserDefinesShardingSettings() {
        this.runner
                .withPropertyValues(uniqueCluster(), "sharding.number-of-shards=7")
                .withBean(
                        ShardingSettings.class,
                        () -> ShardingSettings.defaults()
                                .withClusterName("user-settings")
                                .withJgroups(JgroupsSettings.defaults().withConfig("shared-loopback.xml")))
                .run(context -> assertThat(
                                context.getBean(ShardingSettings.class).numberOfShards())
                        .isEqualTo(100));
    }

    @Test
    void isSwitchedOffBySettingShardingEnabledToFalse() {
        this.runner
                .withPropertyValues("sharding.enabled=false")
                .withUserConfiguration(ScannedConfiguration.class)
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(ShardingNode.class)
                        .doesNotHaveBean(ShardingProperties.class)
                        .doesNotHaveBean(ShardingLifecycle.class)
                        .doesNotHaveBean(ShardingEndpoint.class)
                        .doesNotHaveBean(ShardingHealthIndicator.class)
                        .doesNotHaveBean(Tally.class.getName())
                        .doesNotHaveBean("tallyShardRegion"));
    }

    @Test
    void configuresNothingWithoutJGroups() {
        this.runner
                .withClassLoader(new FilteredClassLoader(JChannel.class))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(ShardingNode.class)
                        .doesNotHaveBean(ShardingSettings.class)
                        .doesNotHaveBean(ShardingEndpoint.class)
                        .doesNotHaveBean(ShardingHealthIndicator.class));
    }

    @Test
    void bindsEveryProperty() {
        this.runner
                .withUserConfiguration(GreeterConfiguration.class)
                .withPropertyValues(
                        "sharding.cluster-name=bound-" + UUID.randomUUID(),
                        "sharding.node-name=bound",
                        "sharding.number-of-shards=30",
                        "sharding.ask-timeout=2s",
                        "sharding.buffer-size=500",
                        "sharding.retry-interval=250ms",
                        "sharding.max-payload-size=64KB",
                        "sharding.rebalance-interval=3s",
                        "sharding.rebalance.absolute-limit=5",
                        "sharding.rebalance.relative-limit=0.25",
                        "sharding.handoff-timeout=90s",
                        "sharding.passivation.idle-timeout=45s",
                        "sharding.passivation.max-active-entities=5000",
                        "sharding.entities.greeter.idle-timeout=0s",
                        "sharding.entities.greeter.remember-entities=true",
                        "sharding.entities.greeter.applied-messages.max-count=10",
                        "sharding.entities.greeter.applied-messages.max-age=5m",
                        "sharding.entities.greeter.passivation.strategy=least-frequently-used",
                        "sharding.entities.greeter.passivation.active-entity-limit=250",
                        "sharding.passivation.active-entity-limit=777",
                        "sharding.jgroups.bind-address=127.0.0.2",
                        "sharding.jgroups.bind-port=9000",
                        "sharding.jgroups.port-range=3",
                        "sharding.jgroups.initial-hosts=127.0.0.2[9000..9003]",
                        "sharding.entities.greeter.number-of-shards=12",
                        "sharding.entities.greeter.proxy-only=true",
                        "sharding.message-types=" + ExtraMessage.class.getName())
                .run(context -> {
                    ShardingSettings settings = context.getBean(ShardingSettings.class);
                    assertThat(settings.clusterName()).startsWith("bound-");
                    assertThat(settings.nodeName()).isEqualTo("bound");
                    assertThat(settings.numberOfShards()).isEqualTo(30);
                    assertThat(settings.askTimeout()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(settings.bufferSize()).isEqualTo(500);
                    assertThat(settings.retryInterval()).isEqualTo(Duration.ofMillis(250));
                    assertThat(settings.maxPayloadSize()).isEqualTo(64 * 1024);
                    assertThat(settings.rebalance().interval()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(settings.rebalance().absoluteLimit()).isEqualTo(5);
                    assertThat(settings.rebalance().relativeLimit()).isEqualTo(0.25);
                    assertThat(settings.handoffTimeout()).isEqualTo(Duration.ofSeconds(90));
                    assertThat(settings.passivation().idleTimeout()).isEqualTo(Duration.ofSeconds(45));
                    assertThat(settings.passivation().maxActiveEntities()).isEqualTo(5000);
                    assertThat(settings.idleTimeout("greeter")).isEqualTo(Duration.ZERO);
                    assertThat(settings.jgroups().bindAddress()).isEqualTo("127.0.0.2");
                    assertThat(settings.jgroups().bindPort()).isEqualTo(9000);
                    assertThat(settings.jgroups().portRange()).isEqualTo(3);
                    assertThat(settings.jgroups().initialHosts()).isEqualTo("127.0.0.2[9000..9003]");
                    assertThat(settings.jgroups().config()).isEqualTo("shared-loopback.xml");
                    assertThat(settings.entity("greeter"))
                            .isEqualTo(EntityTypeSettings.builder()
                                    .numberOfShards(12)
                                    .proxyOnly(true)
                                    .idleTimeout(Duration.ZERO)
                                    .rememberEntities(true)
                                    .appliedMessages(new AppliedMessageWindow(10, Duration.ofMinutes(5)))
                                    .passivation(dev.sharding.PassivationStrategy.LEAST_FREQUENTLY_USED)
                                    .activeEntityLimit(250)
                                    .build());
                    assertThat(settings.passivation().activeEntityLimit()).isEqualTo(777);
                    assertThat(context.getBean(ShardingProperties.class).getMessageTypes())
                            .containsExactly(ExtraMessage.class);
                    ShardingNode node = context.getBean(ShardingNode.class);
                    assertThat(node.nodeName()).isEqualTo("bound");
                    assertThat(node.localRegion("greeter").proxyOnly()).isTrue();
                });
    }

    @Test
    void bindsTheBoundsAndTheBlockedThreadThreshold() {
        this.runner
                .withUserConfiguration(GreeterConfiguration.class)
                .withPropertyValues(
                        uniqueCluster(),
                        "sharding.buffer-bytes=64MB",
                        "sharding.mailbox-size=500",
                        "sharding.blocked-thread-threshold=2s")
                .run(context -> {
                    ShardingSettings settings = context.getBean(ShardingSettings.class);
                    assertThat(settings.bufferBytes()).isEqualTo(64L * 1024 * 1024);
                    assertThat(settings.mailboxSize()).isEqualTo(500);
                    assertThat(settings.blockedThreadThreshold()).isEqualTo(Duration.ofSeconds(2));
                });
    }

    @Test
    void bindsTheDiscoveryAndSecurityProperties() {
        this.runner
                .withUserConfiguration(GreeterConfiguration.class)
                .withPropertyValues(
                        uniqueCluster(),
                        "sharding.jgroups.discovery=dns",
                        "sharding.jgroups.dns-query=bank.default.svc.cluster.local",
                        "sharding.jgroups.fd-port=9100",
                        "sharding.jgroups.max-frame-size=256KB",
                        "sharding.jgroups.secret=0123456789abcdef-secret")
                .run(context -> {
                    JgroupsSettings jgroups =
                            context.getBean(ShardingSettings.class).jgroups();
                    assertThat(jgroups.discovery()).isEqualTo(JgroupsSettings.Discovery.DNS);
                    assertThat(jgroups.dnsQuery()).isEqualTo("bank.default.svc.cluster.local");
                    assertThat(jgroups.fdPort()).isEqualTo(9100);
                    assertThat(jgroups.maxFrameSize()).isEqualTo(256 * 1024);
                    assertThat(jgroups.secret()).isEqualTo("0123456789abcdef-secret");
                    assertThat(jgroups.keyStore()).isNull();
                    assertThat(context.getBean(ShardingNode.class).isRunning()).isTrue();
                });
        this.runner
                .withUserConfiguration(GreeterConfiguration.class)
                .withPropertyValues(
                        uniqueCluster(),
                        "sharding.jgroups.discovery=jdbc",
                        "sharding.jgroups.key-store.path=/etc/sharding/cluster.p12",
                        "sharding.jgroups.key-store.password=pw",
                        "sharding.jgroups.key-store.type=JCEKS")
                // the key store is read when the node starts: a missing file fails startup naming the property
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("sharding.jgroups.key-store.path=/etc/sharding/cluster.p12")
                        .hasStackTraceContaining("(type JCEKS)"));
    }

    @Test
    void bindsTheCommandLineExampleAndJoinsOverTcp() {
        this.runner
                .withUserConfiguration(GreeterConfiguration.class)
                .withPropertyValues(
                        uniqueCluster(),
                        "sharding.jgroups.config=",
                        "sharding.node-name=n1",
                        "sharding.jgroups.bind-address=127.0.0.1",
                        "sharding.jgroups.bind-port=17801",
                        "sharding.jgroups.initial-hosts=127.0.0.1[17800],127.0.0.1[17801],127.0.0.1[17802]")
                .run(context -> {
                    ShardingSettings settings = context.getBean(ShardingSettings.class);
                    assertThat(settings.nodeName()).isEqualTo("n1");
                    assertThat(settings.jgroups().bindAddress()).isEqualTo("127.0.0.1");
                    assertThat(settings.jgroups().bindPort()).isEqualTo(17801);
                    assertThat(settings.jgroups().initialHosts())
                            .isEqualTo("127.0.0.1[17800],127.0.0.1[17801],127.0.0.1[17802]");
                    assertThat(settings.jgroups().config())
                            .as("an empty value selects the built-in TCP stack")
                            .isNull();
                    ShardingNode node = context.getBean(ShardingNode.class);
                    assertThat(node.isRunning()).isTrue();
                    assertThat(node.nodeName()).isEqualTo("n1");
                    assertThat(node.region(Greeter.class)
                                    .ask("tcp", new Greeter.Greet("Tcp"), Greeter.Greeting.class)
                                    .get(10, TimeUnit.SECONDS)
                                    .text())
                            .endsWith("on n1");
                });
    }

    @Test
    void defaultsEqualCoreDefaults() {
        assertThat(new ShardingProperties().toSettings()).isEqualTo(ShardingSettings.defaults());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            sharding.number-of-shards=0                  | sharding.number-of-shards=0
            sharding.ask-timeout=0s                      | sharding.ask-timeout=PT0S
            sharding.buffer-size=-1                      | sharding.buffer-size=-1
            sharding.retry-interval=-1s                  | sharding.retry-interval=PT-1S
            sharding.max-payload-size=100B               | sharding.max-payload-size=100
            sharding.max-payload-size=4GB                | sharding.max-payload-size=4294967296B
            sharding.cluster-name=                       | sharding.cluster-name
            sharding.node-name=                          | sharding.node-name
            sharding.rebalance.relative-limit=2          | sharding.rebalance.relative-limit=2.0
            sharding.handoff-timeout=0s                  | sharding.handoff-timeout=PT0S
            sharding.jgroups.bind-port=70000             | sharding.jgroups.bind-port=70000
            sharding.jgroups.port-range=-2               | sharding.jgroups.port-range=-2
            sharding.entities.greeter.number-of-shards=-1 | sharding.entities.greeter.number-of-shards=-1
            sharding.entities.greter.proxy-only=true     | sharding.entities.greter
            sharding.entities.greeter.idle-timeout=-1s   | sharding.entities.greeter.idle-timeout
            sharding.entities.greeter.applied-messages.max-count=0 | sharding.entities.greeter.applied-messages.max-count=0
            sharding.entities.greeter.applied-messages.max-age=0s  | sharding.entities.greeter.applied-messages.max-age=PT0S
            sharding.passivation.active-entity-limit=0             | sharding.passivation.active-entity-limit=0
            sharding.entities.greeter.passivation.active-entity-limit=-1 | sharding.entities.greeter.passivation.active-entity-limit=-1
            sharding.mailbox-size=0                      | sharding.mailbox-size=0
            sharding.buffer-bytes=0B                     | sharding.buffer-bytes=0
            sharding.blocked-thread-threshold=-1s        | sharding.blocked-thread-threshold=PT-1S
            sharding.jgroups.max-frame-size=1KB          | sharding.jgroups.max-frame-size=1024
            sharding.backpressure.max-queued-bytes=1KB   | sharding.backpressure.max-queued-bytes=1024
            sharding.backpressure.max-wait=-1ms          | sharding.backpressure.max-wait=PT-0.001S
            sharding.jgroups.discovery=dns               | sharding.jgroups.dns-query
            sharding.jgroups.fd-port=70000               | sharding.jgroups.fd-port=70000
            sharding.split-brain.strategy=static-quorum  | sharding.split-brain.quorum-size=0
            sharding.split-brain.lease-duration=10ms     | sharding.split-brain.lease-duration=10ms
            """)
    void invalidValueFailsStartupNamingTheProperty(String property, String named) {
        this.runner
                .withPropertyValues(uniqueCluster(), property)
                .withUserConfiguration(GreeterConfiguration.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("Property " + named.split("=")[0] + " with value"));
    }

    @Test
    void anUnknownPassivationStrategyFailsStartupNamingTheProperty() {
        this.runner
                .withPropertyValues(uniqueCluster(), "sharding.entities.greeter.passivation.strategy=fifo")
                .withUserConfiguration(GreeterConfiguration.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("sharding.entities.greeter.passivation.strategy")
                        .hasStackTraceContaining("fifo"));
    }

    @Test
    void missingJGroupsStackFailsStartupWithAnAnalysisNamingTheProperty() {
        this.runner
                .withPropertyValues(uniqueCluster(), "sharding.jgroups.config=no-such-stack.xml")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis =
                            new JGroupsConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).contains("no-such-stack.xml", "sharding.jgroups.config");
                    assertThat(analysis.getAction()).contains("sharding.jgroups.config");
                });
    }

    @Test
    void invalidInitialHostsFailStartupWithAnAnalysisNamingTheProperty() {
        this.runner
                .withPropertyValues(
                        uniqueCluster(), "sharding.jgroups.config=", "sharding.jgroups.initial-hosts=localhost:7800")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis =
                            new JGroupsConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).contains("localhost:7800", "sharding.jgroups.initial-hosts");
                    assertThat(analysis.getAction()).contains("sharding.jgroups.initial-hosts", "host[port]");
                });
    }

    @Test
    void injectingEntityContextIntoASingletonFailsClearly() {
        this.runner
                .withPropertyValues(uniqueCluster())
                .withUserConfiguration(MisusedContextConfiguration.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("EntityContext can only be injected into a @ShardedEntity class")
                        .hasMessageContaining("ShardRegion"));
    }

    @Test
    void appliesCustomizersInOrder() {
        this.runner
                .withPropertyValues(uniqueCluster(), "sharding.message-types=" + ExtraMessage.class.getName())
                .withUserConfiguration(GreeterConfiguration.class, CustomizerConfiguration.class)
                .run(context -> {
                    CustomizerConfiguration customizers = context.getBean(CustomizerConfiguration.class);
                    assertThat(context.getBean(ShardingSettings.class).askTimeout())
                            .isEqualTo(Duration.ofSeconds(9));
                    assertThat(customizers.channelName.get())
                            .isEqualTo(context.getBean(ShardingNode.class).nodeName());
                    assertThat(customizers.declaredTypes.get())
                            .contains(ExtraMessage.class, Greeter.Greet.class, Greeter.Greeting.class);
                    assertThat(customizers.order)
                            .containsExactly("settings", "node", "channel-first", "channel-second");
                });
    }

    @Test
    void lifecycleStartsTheNodeBeforeTheWebServerAndStopsItWhenTheContextCloses() {
        AtomicReference<ShardingNode> node = new AtomicReference<>();
        this.runner.withPropertyValues(uniqueCluster()).run(context -> {
            ShardingLifecycle lifecycle = context.getBean(ShardingLifecycle.class);
            assertThat(lifecycle.getPhase())
                    .as("below the web server's phases")
                    .isLessThan(SmartLifecycle.DEFAULT_PHASE - 2048);
            assertThat(lifecycle.isAutoStartup()).isTrue();
            assertThat(lifecycle.isRunning()).isTrue();
            assertThatThrownBy(lifecycle::stop).isInstanceOf(UnsupportedOperationException.class);
            node.set(context.getBean(ShardingNode.class));
        });
        assertThat(node.get().isRunning()).isFalse();
    }

    @Test
    void removingTheStoredShardingDataBuildsTheNodeButNeverStartsIt() {
        AtomicReference<ShardingNode> node = new AtomicReference<>();
        this.runner
                .withPropertyValues(uniqueCluster(), "sharding.store.remove-sharding-data=true")
                .withUserConfiguration(GreeterConfiguration.class)
                .run(context -> {
                    assertThat(context)
                            .hasSingleBean(ShardingDataRemovalRunner.class)
                            .hasSingleBean(ShardingDataRemovalRunner.StopWhenReady.class)
                            .doesNotHaveBean(ShardingLifecycle.class)
                            .hasBean("greeterShardRegion");
                    node.set(context.getBean(ShardingNode.class));
                    assertThat(node.get().isRunning()).isFalse();
                });
        assertThat(node.get().isRunning()).isFalse();
        this.runner
                .withPropertyValues(uniqueCluster())
                .run(context -> assertThat(context)
                        .doesNotHaveBean(ShardingDataRemovalRunner.class)
                        .doesNotHaveBean(ShardingDataRemovalRunner.StopWhenReady.class));
    }

    @Test
    void failureAnalyzersAndEnvironmentPostProcessorAreRegistered() {
        SpringFactoriesLoader.FailureHandler skipOthersNeedingArguments = (type, name, failure) -> {};
        assertThat(SpringFactoriesLoader.forDefaultResourceLocation()
                        .load(FailureAnalyzer.class, skipOthersNeedingArguments))
                .anyMatch(JGroupsConfigurationFailureAnalyzer.class::isInstance)
                .anyMatch(ShardingDataRemovalFailureAnalyzer.class::isInstance)
                .anyMatch(ShardingConfigurationFailureAnalyzer.class::isInstance)
                .anyMatch(UndecodableTypeFailureAnalyzer.class::isInstance);
        assertThat(SpringFactoriesLoader.forDefaultResourceLocation()
                        .load(org.springframework.boot.EnvironmentPostProcessor.class, skipOthersNeedingArguments))
                .anyMatch(ShardingDataRemovalEnvironmentPostProcessor.class::isInstance);
    }

    @Configuration(proxyBeanMethods = false)
    static class UserNodeConfiguration {

        @Bean
        ShardingNode userNode(ShardingProperties properties) {
            return ShardingNode.builder(properties.toSettings().withNodeName("user-node"))
                    .build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MisusedContextConfiguration {

        @Bean
        String misusedContext(EntityContext context) {
            return context.entityId();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CustomizerConfiguration {

        final List<String> order = new CopyOnWriteArrayList<>();

        final AtomicReference<String> channelName = new AtomicReference<>();

        final AtomicReference<Set<Class<?>>> declaredTypes = new AtomicReference<>();

        @Bean
        ShardingSettingsCustomizer askTimeoutCustomizer() {
            return settings -> {
                this.order.add("settings");
                return settings.withAskTimeout(Duration.ofSeconds(9));
            };
        }

        @Bean
        ShardingNodeCustomizer declaredTypesCustomizer() {
            return builder -> {
                this.order.add("node");
                this.declaredTypes.set(builder.declaredTypes());
            };
        }

        @Bean
        @Order(2)
        JChannelCustomizer secondChannelCustomizer() {
            return channel -> this.order.add("channel-second");
        }

        @Bean
        @Order(1)
        JChannelCustomizer firstChannelCustomizer() {
            return channel -> {
                this.order.add("channel-first");
                this.channelName.set(channel.getName());
            };
        }
    }
}
