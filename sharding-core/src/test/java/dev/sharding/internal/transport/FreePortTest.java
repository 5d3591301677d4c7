package dev.sharding.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.JgroupsSettings;
import dev.sharding.ShardingSettings;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.UUID;
import org.jgroups.Event;
import org.jgroups.JChannel;
import org.jgroups.PhysicalAddress;
import org.junit.jupiter.api.Test;

/**
 * A node restarted at once after a graceful stop takes its own port again, the one the other nodes' initial hosts
 * list, although the connections its previous run closed still wait out TIME_WAIT on it; a port something listens on
 * is skipped.
 */
class FreePortTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void aPortWhoseClosedConnectionsWaitOutTimeWaitIsTakenAgain() throws Exception {
        int port = portInTimeWait();
        assertThat(StackFactory.firstFreePort(LOOPBACK, port, 3))
                .as("the port of the stopped run")
                .isEqualTo(port);
    }

    /**
     * The whole way, as a node restarted after a graceful stop takes it: the built-in stack's TCP transport listens on
     * the port of the stopped run and the node is named after it, not after the next port, which the other nodes'
     * initial hosts may not list. Fails if JGroups bound its server socket without SO_REUSEADDR (it would move on to
     * the next port of its port range while the node's name kept the first).
     */
    @Test
    void theBuiltInStackListensOnAndIsNamedAfterAPortInTimeWait() throws Exception {
        int port = portInTimeWait();
        ShardingSettings settings = ShardingSettings.defaults()
                .withClusterName("free-port-" + UUID.randomUUID())
                .withJgroups(JgroupsSettings.defaults().withNetwork("127.0.0.1", port, 3, "127.0.0.1[" + port + "]"));
        try (JChannel ch = StackFactory.named(settings, null, new ClusterGuard(null, settings.clusterName()))) {
            ch.connect(settings.clusterName());
            PhysicalAddress bound = (PhysicalAddress) ch.down(new Event(Event.GET_PHYSICAL_ADDRESS, ch.getAddress()));
            assertThat(bound.printIpAddress()).as("the transport's address").endsWith(":" + port);
            assertThat(ch.name()).isEqualTo("127.0.0.1:" + port);
        }
    }

    /** A port whose listener has closed, one of its accepted connections waiting out TIME_WAIT on it. */
    private static int portInTimeWait() throws Exception {
        int port;
        try (ServerSocket previousRun = new ServerSocket()) {
            previousRun.setReuseAddress(true);
            previousRun.bind(new InetSocketAddress(LOOPBACK, 0));
            port = previousRun.getLocalPort();
            try (Socket peer = new Socket(LOOPBACK, port);
                    Socket accepted = previousRun.accept()) {
                // the listening side closes first, as a node that stops does: its end waits in TIME_WAIT
                accepted.close();
                InputStream in = peer.getInputStream();
                assertThat(in.read()).as("the peer sees the close").isEqualTo(-1);
                OutputStream out = peer.getOutputStream();
                out.flush();
            }
        }
        return port;
    }

    @Test
    void aPortSomethingListensOnIsSkipped() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.setReuseAddress(true);
            taken.bind(new InetSocketAddress(LOOPBACK, 0));
            int port = taken.getLocalPort();
            int free = StackFactory.firstFreePort(LOOPBACK, port, 3);
            assertThat(free).isGreaterThan(port).isLessThanOrEqualTo(port + 3);
        }
    }
}
