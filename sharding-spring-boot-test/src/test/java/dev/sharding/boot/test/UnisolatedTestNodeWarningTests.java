package dev.sharding.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.boot.test.counter.CounterApplication;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.ContextCustomizer;

/**
 * A test context without {@link AutoConfigureShardingTest} whose node could join a cluster outside the JVM says so,
 * with the fix; one on the in-JVM stack says nothing.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnisolatedTestNodeWarningTests {

    private static final String WARNING = "This test's sharding node runs on the built-in TCP stack";

    private static ContextCustomizer customizerOf(Class<?> testClass) {
        return new ShardingTestContextCustomizerFactory().createContextCustomizer(testClass, List.of());
    }

    private static ConfigurableApplicationContext start(ContextCustomizer customizer, String... properties) {
        return new SpringApplicationBuilder(CounterApplication.class)
                .web(org.springframework.boot.WebApplicationType.NONE)
                .initializers(context -> customizer.customizeContext(context, null))
                .run(java.util.Arrays.stream(properties).map(p -> "--" + p).toArray(String[]::new));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void aPlainTestNodeOnTheTcpStackIsWarnedOf(CapturedOutput output) throws IOException {
        int port = freePort();
        String cluster = "plain-" + UUID.randomUUID();
        try (ConfigurableApplicationContext context = start(
                customizerOf(PlainTest.class),
                "sharding.cluster-name=" + cluster,
                "sharding.store.type=memory",
                "sharding.jgroups.bind-port=" + port,
                "sharding.jgroups.port-range=0",
                "sharding.jgroups.initial-hosts=127.0.0.1[" + port + "]")) {
            assertThat(output)
                    .contains(WARNING, "cluster '" + cluster + "'", "127.0.0.1[" + port + "]")
                    .contains("@AutoConfigureShardingTest");
        }
    }

    @Test
    void aTestNodeOnTheInJvmStackIsNotWarnedOf(CapturedOutput output) {
        try (ConfigurableApplicationContext context = start(
                customizerOf(PlainTest.class),
                "sharding.cluster-name=in-jvm-" + UUID.randomUUID(),
                "sharding.store.type=memory",
                "sharding.jgroups.config=" + ShardingTestProperties.IN_JVM_STACK)) {
            assertThat(output).doesNotContain(WARNING);
        }
    }

    @Test
    void theWarningKeepsContextsShareable() {
        assertThat(customizerOf(PlainTest.class)).isEqualTo(customizerOf(OtherPlainTest.class));
    }

    @SpringBootTest
    static class PlainTest {}

    @SpringBootTest
    static class OtherPlainTest {}
}
