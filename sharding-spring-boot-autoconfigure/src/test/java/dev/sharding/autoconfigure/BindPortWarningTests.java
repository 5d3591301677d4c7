package dev.sharding.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardingNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Changing only {@code sharding.jgroups.bind-port} leaves the default initial hosts (7800-7809) not listing the node:
 * the next node would not find it. The node says so at startup, on the built-in TCP stack.
 */
@ExtendWith(OutputCaptureExtension.class)
class BindPortWarningTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ShardingAutoConfiguration.class))
            .withPropertyValues(
                    "sharding.store.type=memory",
                    "sharding.cluster-name=bind-port-" + UUID.randomUUID(),
                    "sharding.jgroups.port-range=0");

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void warnsWhenTheInitialHostsDoNotListTheBindPort(CapturedOutput output) throws IOException {
        int port = freePort();
        this.runner.withPropertyValues("sharding.jgroups.bind-port=" + port).run(context -> {
            assertThat(context.getBean(ShardingNode.class).isRunning()).isTrue();
            assertThat(output)
                    .contains("This node listens on 127.0.0.1:" + port
                            + ", which sharding.jgroups.initial-hosts=127.0.0.1[7800..7809] does not list");
        });
    }

    @Test
    void saysNothingWhenTheInitialHostsListIt(CapturedOutput output) throws IOException {
        int port = freePort();
        this.runner
                .withPropertyValues(
                        "sharding.jgroups.bind-port=" + port, "sharding.jgroups.initial-hosts=127.0.0.1[" + port + "]")
                .run(context -> {
                    assertThat(context.getBean(ShardingNode.class).isRunning()).isTrue();
                    assertThat(output).doesNotContain("does not list");
                });
    }
}
