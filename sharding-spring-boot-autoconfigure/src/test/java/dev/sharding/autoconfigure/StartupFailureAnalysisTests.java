package dev.sharding.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.autoconfigure.greeting.GreeterConfiguration;
import dev.sharding.autoconfigure.mistakes.Agenda;
import dev.sharding.autoconfigure.mistakes.Amount;
import dev.sharding.autoconfigure.mistakes.ClashingType;
import dev.sharding.autoconfigure.mistakes.Clicks;
import dev.sharding.autoconfigure.mistakes.NoHandler;
import dev.sharding.autoconfigure.mistakes.NoInitialState;
import dev.sharding.autoconfigure.mistakes.TwoHandlers;
import dev.sharding.autoconfigure.mistakes.Wallet;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Invalid settings and entity definitions, and message or state classes that would fail between nodes, stop the
 * application at startup with a report (description and action) from a failure analyzer, not a stack trace.
 */
class StartupFailureAnalysisTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ShardingAutoConfiguration.class))
            .withPropertyValues(
                    "sharding.jgroups.config=shared-loopback.xml",
                    "sharding.store.type=memory",
                    "sharding.cluster-name=failures-" + UUID.randomUUID());

    private static ContextConsumer<AssertableApplicationContext> reports(Consumer<FailureAnalysis> expectations) {
        return context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = FailureAnalyses.analyze(context.getStartupFailure(), new StandardEnvironment());
            assertThat(analysis)
                    .as("a failure analysis of %s", context.getStartupFailure())
                    .isNotNull();
            expectations.accept(analysis);
        };
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            sharding.number-of-shards=0                   | sharding.number-of-shards     | must be positive
            sharding.ask-timeout=-1s                      | sharding.ask-timeout          | must be positive
            sharding.max-payload-size=4GB                 | sharding.max-payload-size     | must be at most
            sharding.entities.greeter.number-of-shards=-1 | sharding.entities.greeter.number-of-shards | positive
            sharding.entities.greeter.idle-timeout=-1s    | sharding.entities.greeter.idle-timeout | zero (never)
            sharding.entities.greter.proxy-only=true      | sharding.entities.greter | no entity type named 'greter'
            """)
    void invalidSettingIsReportedAgainstItsProperty(String setting, String property, String rule) {
        this.runner
                .withUserConfiguration(GreeterConfiguration.class)
                .withPropertyValues(setting)
                .run(reports(analysis -> {
                    assertThat(analysis.getDescription())
                            .contains("'" + property + "'")
                            .contains(rule);
                    assertThat(analysis.getAction()).contains("Review the value of the property");
                }));
    }

    @Test
    void aTooShortSecretIsReportedWithoutItsValue() {
        String secret = "short-secret-42";
        this.runner
                .withUserConfiguration(GreeterConfiguration.class)
                .withPropertyValues("sharding.jgroups.secret=" + secret)
                .run(context -> {
                    assertThat(context).hasFailed();
                    StandardEnvironment environment = new StandardEnvironment();
                    environment
                            .getPropertySources()
                            .addFirst(new MapPropertySource("application", Map.of("sharding.jgroups.secret", secret)));
                    FailureAnalysis analysis = FailureAnalyses.analyze(context.getStartupFailure(), environment);
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription())
                            .contains("sharding.jgroups.secret", "at least 16 characters")
                            .doesNotContain(secret);
                    assertThat(analysis.getAction()).doesNotContain(secret);
                    StringWriter trace = new StringWriter();
                    context.getStartupFailure().printStackTrace(new PrintWriter(trace));
                    assertThat(trace.toString()).doesNotContain(secret);
                });
    }

    @Test
    void aJdbcProjectionOnANodeWhoseStoreIsInMemoryIsReportedWithWhatToDo() {
        this.runner.withUserConfiguration(InMemoryProjection.class).run(reports(analysis -> {
            assertThat(analysis.getDescription())
                    .contains("Projection greeted writes in the JDBC store's transactions", "InMemoryShardingStore")
                    .contains("sharding.store.type=memory");
            assertThat(analysis.getAction()).contains("leave its bean out");
        }));
    }

    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    @org.springframework.context.annotation.Import(dev.sharding.autoconfigure.tally.Tally.class)
    static class InMemoryProjection {

        @org.springframework.context.annotation.Bean
        dev.sharding.EntityType<?> greeted() {
            return dev.sharding.Projection.ofJdbc("greeted", "tally", 2, (connection, events) -> {});
        }
    }

    @Test
    void entityWithoutHandlerIsReported() {
        this.runner.withUserConfiguration(NoHandler.class).run(reports(analysis -> {
            assertThat(analysis.getDescription()).contains(NoHandler.class.getName(), "has no @EntityHandler");
            assertThat(analysis.getAction()).contains("@EntityHandler");
        }));
    }

    @Test
    void entityWithTwoHandlersOfOneTypeIsReported() {
        this.runner.withUserConfiguration(TwoHandlers.class).run(reports(analysis -> {
            assertThat(analysis.getDescription()).contains(TwoHandlers.class.getName(), "java.lang.String");
            assertThat(analysis.getAction()).contains("one @EntityHandler method per message type");
        }));
    }

    @Test
    void entityStateWithoutInitialValueIsReported() {
        this.runner.withUserConfiguration(NoInitialState.class).run(reports(analysis -> {
            assertThat(analysis.getDescription()).contains(NoInitialState.Level.class.getName(), "no-arg");
            assertThat(analysis.getAction()).contains("@InitialState");
        }));
    }

    @Test
    void twoEntityClassesWithOneTypeNameAreReported() {
        this.runner
                .withUserConfiguration(GreeterConfiguration.class, ClashingType.class)
                .run(reports(analysis -> {
                    assertThat(analysis.getDescription()).contains(ClashingType.class.getName(), "'greeter'");
                    assertThat(analysis.getAction()).contains("@ShardedEntity(type");
                }));
    }

    @Test
    void messageClassesThatFailBetweenNodesAreReportedAtStartup() {
        this.runner.withUserConfiguration(Wallet.class).run(reports(analysis -> {
            assertThat(analysis.getDescription())
                    .contains(Amount.class.getName() + ": it cannot be decoded")
                    .contains(Wallet.Envelope.class.getName() + ": it does not come back as it was sent")
                    .contains("Envelope.payload was a");
            assertThat(analysis.getAction()).contains("record");
        }));
    }

    @Test
    void stateClassThatLosesItsValueIsReportedAtStartup() {
        this.runner
                .withUserConfiguration(Clicks.class)
                .run(reports(analysis -> assertThat(analysis.getDescription()).contains(Clicks.Count.class.getName())));
    }

    @Test
    void stateMapKeyedByARecordIsReportedWithHowToKeyIt() {
        this.runner.withUserConfiguration(Agenda.class).run(reports(analysis -> {
            assertThat(analysis.getDescription()).contains(Agenda.Days.class.getName() + ": it cannot be decoded");
            assertThat(analysis.getAction()).contains("Key each Map by");
        }));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            sharding.entitys.greeter.number-of-shards=3      | sharding.entities.greeter.number-of-shards
            sharding.passivation.idle-timeout-typo=5m        | sharding.passivation.idle-timeout
            sharding.entities.greeter.pasivation.strategy=lru | sharding.entities.greeter.passivation.strategy
            sharding.jgroups.inital-hosts=a[7800]            | sharding.jgroups.initial-hosts
            sharding.store.table-prefx=app_                  | sharding.store.table-prefix
            """)
    void aMisspeltPropertyFailsTheStartupNamingItAndThePropertyMeant(String setting, String meant) {
        String misspelt = setting.substring(0, setting.indexOf('='));
        this.runner
                .withUserConfiguration(GreeterConfiguration.class)
                .withPropertyValues(setting)
                .run(reports(analysis -> {
                    assertThat(analysis.getDescription())
                            .contains("no setting for this property")
                            .contains(misspelt);
                    assertThat(analysis.getAction()).contains(misspelt + ": did you mean " + meant + "?");
                }));
    }

    @Test
    void aPropertyLikeNoneIsReportedWithoutAGuess() {
        this.runner
                .withUserConfiguration(GreeterConfiguration.class)
                .withPropertyValues("sharding.something-else-entirely=1", "sharding.store.type=memory")
                .run(reports(analysis -> {
                    assertThat(analysis.getDescription()).contains("sharding.something-else-entirely");
                    assertThat(analysis.getAction())
                            .doesNotContain("did you mean")
                            .contains("Correct or remove it");
                }));
    }

    @Test
    void theTestKitsPropertyAndUnrelatedEnvironmentVariablesStillBind() {
        this.runner
                .withUserConfiguration(GreeterConfiguration.class)
                .withPropertyValues("sharding.test.serialize-local-messages=true")
                .withInitializer(context -> context.getEnvironment()
                        .getPropertySources()
                        .addLast(new org.springframework.core.env.SystemEnvironmentPropertySource(
                                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                                Map.of("SHARDING_SERVICE_HOST", "10.0.0.1", "SHARDING_PORT", "tcp://10.0.0.1:80"))))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(ShardingProperties.class)
                                    .getTest()
                                    .isSerializeLocalMessages())
                            .isTrue();
                });
    }

    @Test
    void everyPropertyTheDocumentationListsIsKnown() throws Exception {
        java.util.List<String> listed = java.nio.file.Files.readString(
                        java.nio.file.Path.of("../docs/configuration.md"))
                .lines()
                .filter(line -> line.startsWith("| `sharding."))
                .map(line -> line.substring(3, line.indexOf('`', 3)))
                .map(name -> name.replaceAll("<[^>]+>", ShardingPropertyNames.ANY))
                .toList();
        assertThat(listed).hasSizeGreaterThan(40);
        assertThat(ShardingPropertyNames.all()).containsAll(listed);
    }
}
