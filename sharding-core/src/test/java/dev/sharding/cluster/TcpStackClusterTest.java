package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.test.Counter;
import dev.sharding.test.LoopbackTcp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jgroups.JChannel;
import org.jgroups.protocols.BasicTCP;
import org.jgroups.protocols.FD_SOCK2;
import org.jgroups.protocols.NoBundler;
import org.jgroups.protocols.TP;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The default stack (TCP + TCPPING on loopback) as the sample app uses it: the tuned values are in force, the node
 * is named after its address and port, and two nodes form a cluster and route messages.
 */
class TcpStackClusterTest {

    private final List<ShardingNode> nodes = new ArrayList<>();

    private final Map<String, JChannel> channels = new ConcurrentHashMap<>();

    @AfterEach
    void stop() {
        nodes.forEach(ShardingNode::close);
    }

    @Test
    void defaultTcpStackFormsAClusterWithTheTunedSettings() throws Exception {
        List<ShardingSettings> all = LoopbackTcp.nodes("tcp", 2);
        LoopbackTcp.start(
                all,
                settings -> ShardingNode.builder(settings)
                        .entityType(Counter.type())
                        .channelCustomizer(ch -> channels.put("127.0.0.1:" + settings.bindPort(), ch)),
                nodes);
        int p1 = all.get(0).bindPort();
        int p2 = all.get(1).bindPort();

        assertThat(nodes.get(0).nodeName()).isEqualTo("127.0.0.1:" + p1);
        assertThat(nodes.get(1).nodeName()).isEqualTo("127.0.0.1:" + p2);
        JChannel ch = channels.get(nodes.get(0).nodeName());
        TP transport = ch.getProtocolStack().getTransport();
        assertThat(transport.getBundler()).isInstanceOf(NoBundler.class);
        assertThat(((BasicTCP) transport).tcpNodelay()).isTrue();
        assertThat(transport.getBindAddress().getHostAddress()).isEqualTo("127.0.0.1");
        assertThat(transport.getBindPort()).isEqualTo(p1);
        FD_SOCK2 fd = ch.getProtocolStack().findProtocol(FD_SOCK2.class);
        assertThat(fd.getBindAddress().getHostAddress()).isEqualTo("127.0.0.1");

        for (int i = 0; i < 20; i++) {
            Counter.Total t = nodes.get(i % 2)
                    .region(Counter.class)
                    .ask("t-" + i, new Counter.Add(2), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS);
            assertThat(t.total()).isEqualTo(2);
            assertThat(t.node()).isIn(nodes.get(0).nodeName(), nodes.get(1).nodeName());
        }
    }
}
