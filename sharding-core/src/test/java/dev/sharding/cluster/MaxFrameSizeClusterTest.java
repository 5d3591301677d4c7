package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.JgroupsSettings;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.transport.BoundedFdSock;
import dev.sharding.test.Counter;
import java.io.DataOutputStream;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.jgroups.JChannel;
import org.jgroups.Version;
import org.jgroups.protocols.BasicTCP;
import org.jgroups.stack.IpAddress;
import org.jgroups.util.ByteArrayDataOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code sharding.jgroups.max-frame-size}: the built-in TCP stack refuses a length prefix above the limit by closing
 * the connection, before it allocates or waits for that many bytes, and the node keeps serving. The failure-detection
 * port does the same with its own limit ({@link BoundedFdSock#MAX_FRAME}).
 */
class MaxFrameSizeClusterTest {

    private ShardingNode node;

    private JChannel channel;

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void aLengthPrefixAboveTheLimitClosesTheConnectionAndTheNodeKeepsServing() throws Exception {
        int port = freePort();
        ShardingSettings settings = ShardingSettings.defaults()
                .withClusterName("frame-" + UUID.randomUUID())
                .withJgroups(JgroupsSettings.defaults().withNetwork("127.0.0.1", port, 0, "127.0.0.1[" + port + "]"));
        node = ShardingNode.builder(settings)
                .entityType(Counter.type())
                .channelCustomizer(ch -> channel = ch)
                .build();
        node.start();
        BasicTCP tcp = (BasicTCP) channel.getProtocolStack().getTransport();
        assertThat(tcp.getMaxLength()).isEqualTo(JgroupsSettings.DEFAULT_MAX_FRAME_SIZE);

        for (int length : new int[] {Integer.MAX_VALUE, JgroupsSettings.DEFAULT_MAX_FRAME_SIZE + 1}) {
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                socket.setSoTimeout(10_000);
                DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                out.write(handshake(freePort()));
                out.writeInt(length);
                out.flush();
                InputStream in = socket.getInputStream();
                long start = System.nanoTime();
                // the node may answer with its own handshake, then closes the connection rather than wait for
                // (or allocate) the frame; a read timeout here would mean it waits for the frame
                while (in.read() != -1) {
                    // skip the handshake
                }
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            }
        }
        // the failure-detection port (transport port + 100) too, with its own small limit: prefixes of 512 MiB (which
        // the test's heap could hold, so that a server without a limit would take it and wait) and 1.75 GiB close the
        // connection, and nothing near that is allocated
        BoundedFdSock fd = channel.getProtocolStack().findProtocol(BoundedFdSock.class);
        assertThat(fd).as("the stack's FD_SOCK2").isNotNull();
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long heapBefore = memory.getHeapMemoryUsage().getUsed();
        for (int fdPort : new int[] {port + JgroupsSettings.DEFAULT_FD_OFFSET, port}) {
            for (int length : new int[] {0x20000000, 0x70000000, BoundedFdSock.MAX_FRAME + 1}) {
                if (fdPort == port && length == BoundedFdSock.MAX_FRAME + 1) {
                    continue;
                }
                try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), fdPort)) {
                    socket.setSoTimeout(10_000);
                    DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                    out.write(handshake(freePort()));
                    out.writeInt(length);
                    out.flush();
                    InputStream in = socket.getInputStream();
                    // closed rather than waited for: a read timeout here fails the test
                    while (in.read() != -1) {
                        // skip the handshake
                    }
                }
            }
        }
        assertThat(memory.getHeapMemoryUsage().getUsed() - heapBefore)
                .as("heap growth after the huge prefixes")
                .isLessThan(256L * 1024 * 1024);

        Counter.Total t = node.region(Counter.class)
                .ask("after", new Counter.Add(1), Counter.Total.class)
                .get(10, TimeUnit.SECONDS);
        assertThat(t.total()).isEqualTo(1);
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> node.isRunning());
    }

    /** What a JGroups TCP peer sends first: cookie, version and its address. */
    private static byte[] handshake(int fakePort) throws Exception {
        IpAddress self = new IpAddress("127.0.0.1", fakePort);
        ByteArrayDataOutputStream out = new ByteArrayDataOutputStream(64);
        out.write(new byte[] {'b', 'e', 'l', 'a'});
        out.writeShort(Version.version);
        out.writeShort(self.serializedSize());
        self.writeTo(out);
        return java.util.Arrays.copyOf(out.buffer(), out.position());
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
