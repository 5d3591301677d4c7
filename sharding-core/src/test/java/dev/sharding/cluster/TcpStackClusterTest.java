package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityType;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.transport.JGroupsTransport;
import dev.sharding.test.Counter;
import dev.sharding.test.LoopbackTcp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.protocols.BasicTCP;
import org.jgroups.protocols.FD_SOCK2;
import org.jgroups.protocols.NoBundler;
import org.jgroups.protocols.TP;
import org.jgroups.protocols.UFC;
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
                        .channelCustomizer(ch ->
                                channels.put("127.0.0.1:" + settings.jgroups().bindPort(), ch)),
                nodes);
        int p1 = all.get(0).jgroups().bindPort();
        int p2 = all.get(1).jgroups().bindPort();

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

    /**
     * A lone ask or reply goes out on its caller's thread only while the member has the credits
     * {@link JGroupsTransport#inlineSendCredits} asks for: a member that keeps up has them at every point of a round of
     * credits (here three rounds of the default 2 MB, in asks of 10 KB each way), so none of them is handed to the
     * member's sender thread.
     */
    @Test
    void aMemberThatKeepsUpKeepsTheCreditsForALoneFrameThroughWholeRoundsOfCredits() throws Exception {
        List<ShardingSettings> all = LoopbackTcp.nodes("tcp", 2);
        LoopbackTcp.start(
                all,
                settings -> ShardingNode.builder(settings)
                        .entityType(EntityType.of(
                                LocalRoundTripClusterTest.Notebook.class,
                                context -> new LocalRoundTripClusterTest.Notebook()))
                        .channelCustomizer(ch ->
                                channels.put("127.0.0.1:" + settings.jgroups().bindPort(), ch)),
                nodes);
        ShardingNode a = nodes.get(0);
        UFC ufc = channels.get(a.nodeName()).getProtocolStack().findProtocol(UFC.class);
        Address b = channels.get(nodes.get(1).nodeName()).getAddress();
        long needed = JGroupsTransport.inlineSendCredits(ufc);
        String page = "p".repeat(10_000);
        ShardRegion<LocalRoundTripClusterTest.Notebook> region = a.region(LocalRoundTripClusterTest.Notebook.class);
        long lowest = Long.MAX_VALUE;
        long asks = 6 * ufc.getMaxCredits() / page.length(); // about half of them to entities on the other member
        for (int i = 0; i < asks; i++) {
            lowest = Math.min(lowest, ufc.getSenderCreditsFor(b));
            region.ask("n-" + i, new LocalRoundTripClusterTest.Write(page), LocalRoundTripClusterTest.Page.class)
                    .get(10, TimeUnit.SECONDS);
        }
        assertThat(lowest).as("the fewest credits toward the other member").isLessThan(ufc.getMaxCredits() / 2);
        assertThat(lowest).as("the fewest credits toward the other member").isGreaterThanOrEqualTo(needed);
    }
}
