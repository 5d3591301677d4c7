package dev.sharding.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
        assertThat(StackFactory.firstFreePort(LOOPBACK, port, 3))
                .as("the port of the stopped run")
                .isEqualTo(port);
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
