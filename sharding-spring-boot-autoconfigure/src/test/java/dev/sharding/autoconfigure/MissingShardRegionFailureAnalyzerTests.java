package dev.sharding.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardRegion;
import dev.sharding.autoconfigure.greeting.Greeter;
import dev.sharding.autoconfigure.scanned.ScannedConfiguration;
import dev.sharding.autoconfigure.scanned.Tally;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * A region that cannot be injected is reported with the reason and the fix, not with Spring Boot's advice to define a
 * {@code ShardRegion} bean.
 */
class MissingShardRegionFailureAnalyzerTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ShardingAutoConfiguration.class))
            .withUserConfiguration(ScannedConfiguration.class)
            .withPropertyValues(
                    "sharding.jgroups.config=shared-loopback.xml",
                    "sharding.store.type=memory",
                    "sharding.cluster-name=regions-" + UUID.randomUUID());

    private static ContextConsumer<AssertableApplicationContext> reports(
            boolean shardingEnabled, Consumer<FailureAnalysis> expectations) {
        return context -> {
            assertThat(context).hasFailed();
            StandardEnvironment environment = new StandardEnvironment();
            environment
                    .getPropertySources()
                    .addFirst(new MapPropertySource("test", Map.of("sharding.enabled", shardingEnabled)));
            FailureAnalysis analysis = FailureAnalyses.analyze(context.getStartupFailure(), environment);
            assertThat(analysis)
                    .as("a failure analysis of %s", context.getStartupFailure())
                    .isNotNull();
            expectations.accept(analysis);
        };
    }

    @Test
    void anEntityClassOutsideTheScannedPackagesIsNamedWithTheFix() {
        this.runner.withUserConfiguration(GreeterUser.class).run(reports(true, analysis -> {
            assertThat(analysis.getDescription())
                    .contains("ShardRegion<" + Greeter.class.getName() + ">")
                    .contains("did not find the @ShardedEntity class " + Greeter.class.getName())
                    .contains("package of the @SpringBootApplication class");
            assertThat(analysis.getAction()).contains("Move " + Greeter.class.getName(), "@Import(Greeter.class)");
        }));
    }

    @Test
    void aRegionOfAClassThatIsNoEntityIsReported() {
        this.runner.withUserConfiguration(StringRegionUser.class).run(reports(true, analysis -> {
            assertThat(analysis.getDescription()).contains("java.lang.String is not annotated with @ShardedEntity");
            assertThat(analysis.getAction()).contains("Annotate java.lang.String with @ShardedEntity");
        }));
    }

    @Test
    void aRegionWithShardingDisabledIsReported() {
        this.runner
                .withUserConfiguration(TallyUser.class)
                .withPropertyValues("sharding.enabled=false")
                .run(reports(false, analysis -> {
                    assertThat(analysis.getDescription()).contains("sharding.enabled is false");
                    assertThat(analysis.getAction()).contains("Remove sharding.enabled=false");
                }));
    }

    @Test
    void aRegionOfAScannedEntityIsInjected() {
        this.runner
                .withUserConfiguration(TallyUser.class)
                .run(context -> assertThat(context).hasNotFailed().hasBean("tallyUser"));
    }

    @Configuration(proxyBeanMethods = false)
    static class GreeterUser {

        @Bean
        Object greeterUser(ShardRegion<Greeter> greeters) {
            return greeters;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class StringRegionUser {

        @Bean
        Object stringRegionUser(ShardRegion<String> strings) {
            return strings;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TallyUser {

        @Bean
        Object tallyUser(ShardRegion<Tally> tallies) {
            return tallies;
        }
    }
}
