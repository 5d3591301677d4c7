package dev.sharding.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardingNode;
import dev.sharding.autoconfigure.mistakes.OpenCommands;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A handler of an interface that is not sealed works on one node, where messages are not encoded, and fails once its
 * entity lives on another node: its implementations are not declared. The node says so at startup.
 */
@ExtendWith(OutputCaptureExtension.class)
class OpenHandlerParameterWarningTests {

    private static final String WARNING = "takes " + OpenCommands.Command.class.getName() + ", an interface that is"
            + " not sealed, and none of its implementations is declared";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ShardingAutoConfiguration.class))
            .withUserConfiguration(OpenCommands.class)
            .withPropertyValues(
                    "sharding.jgroups.config=shared-loopback.xml",
                    "sharding.store.type=memory",
                    "sharding.cluster-name=open-" + UUID.randomUUID());

    @Test
    void warnsOfAHandlerWhoseMessagesCannotCrossTheNetwork(CapturedOutput output) {
        this.runner.run(context -> {
            assertThat(context.getBean(ShardingNode.class).isRunning()).isTrue();
            assertThat(output).contains(WARNING).contains("sharding.message-types");
        });
    }

    @Test
    void saysNothingOnceAnImplementationIsDeclared(CapturedOutput output) {
        this.runner
                .withPropertyValues("sharding.message-types=" + OpenCommands.Add.class.getName())
                .run(context -> {
                    assertThat(context.getBean(ShardingNode.class).isRunning()).isTrue();
                    assertThat(output).doesNotContain(WARNING);
                });
    }
}
