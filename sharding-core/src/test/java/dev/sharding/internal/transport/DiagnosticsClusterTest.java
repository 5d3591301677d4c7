package dev.sharding.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardingNode;
import dev.sharding.test.Counter;
import dev.sharding.test.TestCluster;
import java.util.concurrent.atomic.AtomicReference;
import org.jgroups.JChannel;
import org.jgroups.stack.DiagnosticsHandler;
import org.junit.jupiter.api.Test;

/**
 * JGroups' diagnostics answer anyone on the network, below the guard and without the secret: a stack of one's own
 * that does not mention them gets them off, and one that asks for them keeps them.
 */
class DiagnosticsClusterTest {

    private static DiagnosticsHandler diagnosticsOfANodeWith(String stack) {
        AtomicReference<JChannel> channel = new AtomicReference<>();
        try (TestCluster cluster = new TestCluster(
                s -> ShardingNode.builder(s.withJgroups(s.jgroups().withConfig(stack)))
                        .entityType(Counter.type())
                        .channelCustomizer(channel::set))) {
            cluster.startNodes(1);
            return channel.get().getProtocolStack().getTransport().getDiagnosticsHandler();
        }
    }

    @Test
    void aStackThatSaysNothingOfDiagnosticsGetsThemOff() {
        DiagnosticsHandler diagnostics = diagnosticsOfANodeWith("shared-loopback-diagnostics-unset.xml");
        assertThat(diagnostics == null || !diagnostics.isEnabled()).isTrue();
    }

    @Test
    void aStackThatAsksForDiagnosticsKeepsThem() {
        DiagnosticsHandler diagnostics = diagnosticsOfANodeWith("shared-loopback-diagnostics-on.xml");
        assertThat(diagnostics).isNotNull();
        assertThat(diagnostics.isEnabled()).isTrue();
    }
}
