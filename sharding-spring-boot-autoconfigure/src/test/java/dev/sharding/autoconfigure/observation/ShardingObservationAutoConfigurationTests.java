package dev.sharding.autoconfigure.observation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.autoconfigure.ShardingAutoConfiguration;
import dev.sharding.autoconfigure.vault.Vault;
import dev.sharding.spi.EntityTypeMetrics.AskOutcome;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.SenderContext;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.ResolvableType;

/**
 * The observation auto-configuration: asks and tells observed with their entity and outcome when the application has
 * an {@link ObservationRegistry}, the entity's handling observed when the message carries headers (here from a
 * handler that stands in for a tracer), and nothing at all without a registry, without Micrometer's observation API,
 * or with {@code sharding.observation.enabled=false}.
 */
class ShardingObservationAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(ShardingAutoConfiguration.class, ShardingObservationAutoConfiguration.class))
            .withUserConfiguration(VaultConfiguration.class)
            .withPropertyValues(
                    "sharding.cluster-name=observation-" + UUID.randomUUID(),
                    "sharding.jgroups.config=shared-loopback.xml",
                    "sharding.store.type=memory");

    private final ApplicationContextRunner withRegistry = this.runner
            .withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
            .withUserConfiguration(Recorder.class);

    @Configuration(proxyBeanMethods = false)
    @Import(Vault.class)
    static class VaultConfiguration {}

    /** Keeps every observation that stopped, and puts one header into every message sent, as a tracer would. */
    @Configuration(proxyBeanMethods = false)
    static class Recorder {

        final List<Observation.Context> started = new CopyOnWriteArrayList<>();

        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Bean
        ObservationHandler<Observation.Context> recordingHandler() {
            return new ObservationHandler<>() {
                @Override
                @SuppressWarnings("unchecked")
                public void onStart(Observation.Context context) {
                    Recorder.this.started.add(context);
                    if (context instanceof SenderContext<?> sender && sender.getCarrier() != null) {
                        ((SenderContext<Object>) sender)
                                .getSetter()
                                .set(sender.getCarrier(), "test-trace", context.getName() + "@" + context.hashCode());
                    }
                }

                @Override
                public void onStop(Observation.Context context) {
                    Recorder.this.stopped.add(context);
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return true;
                }
            };
        }
    }

    @SuppressWarnings("unchecked")
    private static ShardRegion<Vault> vaults(ApplicationContext context) {
        return (ShardRegion<Vault>)
                context.getBeanProvider(ResolvableType.forClassWithGenerics(ShardRegion.class, Vault.class))
                        .getObject();
    }

    private static <C extends Observation.Context> C stopped(
            ApplicationContext context, Class<C> type, java.util.function.Predicate<C> which) {
        Recorder recorder = context.getBean(Recorder.class);
        return Awaitility.await(type.getSimpleName() + " stopped, among " + recorder.stopped)
                .atMost(Duration.ofSeconds(20))
                .until(
                        () -> recorder.stopped.stream()
                                .filter(type::isInstance)
                                .map(type::cast)
                                .filter(which)
                                .findFirst()
                                .orElse(null),
                        c -> c != null);
    }

    @Test
    void withARegistryButNoTracerMessagesAreObservedOnlyWhenAskedFor() {
        this.withRegistry.run(context -> {
            assertThat(context).hasNotFailed();
            vaults(context).ask("v-3", new Vault.Put(1), Vault.Reply.class).get(10, TimeUnit.SECONDS);
            vaults(context).tell("v-3", new Vault.Put(1));
            assertThat(context.getBean(Recorder.class).started)
                    .as("an ask's and a tell's observation start on the caller's thread, within the call")
                    .noneMatch(c -> c instanceof ShardingSendContext || c instanceof ShardingHandleContext);
        });
    }

    @Test
    void asksTellsAndTheirHandlingAreObservedWithTheirEntityAndOutcome() {
        this.withRegistry
                .withPropertyValues("sharding.observation.enabled=true")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(ObservationMessageTracing.class);
                    ShardRegion<Vault> vaults = vaults(context);
                    vaults.ask("v-1", new Vault.Put(2), Vault.Reply.class).get(10, TimeUnit.SECONDS);

                    ShardingSendContext ask = stopped(context, ShardingSendContext.class, ShardingSendContext::isAsk);
                    assertThat(ask.getName()).isEqualTo(ObservationMessageTracing.ASK);
                    assertThat(ask.getContextualName()).isEqualTo("ask vault");
                    assertThat(ask.getTypeName()).isEqualTo("vault");
                    assertThat(ask.getEntityId()).isEqualTo("v-1");
                    assertThat(ask.getOutcome()).isEqualTo(AskOutcome.SUCCESS);
                    assertThat(ask.isRemote()).isFalse();
                    assertThat(ask.getLowCardinalityKeyValues())
                            .containsExactlyInAnyOrder(
                                    KeyValue.of("sharding.type", "vault"),
                                    KeyValue.of("sharding.outcome", "success"),
                                    KeyValue.of("sharding.remote", "false"));
                    assertThat(ask.getHighCardinalityKeyValues())
                            .containsExactly(KeyValue.of("sharding.entity.id", "v-1"));

                    ShardingHandleContext handled =
                            stopped(context, ShardingHandleContext.class, ShardingHandleContext::isAsk);
                    assertThat(handled.getCarrier())
                            .as("the headers the sender's observation gave")
                            .isEqualTo(ask.getCarrier());
                    assertThat(handled.getName()).isEqualTo(ObservationMessageTracing.HANDLE);
                    assertThat(handled.getOutcome()).isEqualTo(AskOutcome.SUCCESS);
                    assertThat(handled.getLowCardinalityKeyValues())
                            .containsExactlyInAnyOrder(
                                    KeyValue.of("sharding.type", "vault"),
                                    KeyValue.of("sharding.kind", "ask"),
                                    KeyValue.of("sharding.outcome", "success"));

                    vaults.tell("v-1", new Vault.Put(1));
                    ShardingSendContext tell = stopped(context, ShardingSendContext.class, c -> !c.isAsk());
                    assertThat(tell.getName()).isEqualTo(ObservationMessageTracing.TELL);
                    assertThat(tell.getLowCardinalityKeyValues())
                            .containsExactlyInAnyOrder(
                                    KeyValue.of("sharding.type", "vault"), KeyValue.of("sharding.outcome", "success"));
                    assertThat(stopped(context, ShardingHandleContext.class, c -> !c.isAsk())
                                    .getOutcome())
                            .isEqualTo(AskOutcome.SUCCESS);
                });
    }

    @Test
    void backsOffWithoutAnObservationRegistry() {
        this.runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(ShardingNode.class);
            assertThat(context).doesNotHaveBean(ObservationMessageTracing.class);
        });
    }

    @Test
    void backsOffWithoutMicrometersObservationApi() {
        this.runner
                .withClassLoader(new FilteredClassLoader("io.micrometer.observation"))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(ShardingNode.class);
                    assertThat(context).doesNotHaveBean(ObservationMessageTracing.class);
                });
    }

    @Test
    void isSwitchedOffByItsProperty() {
        this.withRegistry
                .withPropertyValues("sharding.observation.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(ObservationMessageTracing.class);
                    vaults(context)
                            .ask("v-2", new Vault.Look(), Vault.Reply.class)
                            .get(10, TimeUnit.SECONDS);
                    assertThat(context.getBean(Recorder.class).stopped)
                            .noneMatch(c -> c instanceof ShardingSendContext || c instanceof ShardingHandleContext);
                });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnTracing() {
        ObservationMessageTracing own = new ObservationMessageTracing(ObservationRegistry.NOOP);
        this.withRegistry
                .withBean("ownTracing", ObservationMessageTracing.class, () -> own)
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .getBean(ObservationMessageTracing.class)
                        .isSameAs(own));
    }
}
