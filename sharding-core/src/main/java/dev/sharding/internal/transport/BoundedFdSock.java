package dev.sharding.internal.transport;

import org.jgroups.blocks.cs.NioServer;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.FD_SOCK2;

/**
 * JGroups' FD_SOCK2 with a limit on the length prefix its server accepts. The plain protocol's server takes any
 * prefix and allocates that much before a byte of the frame arrives, from anyone who can reach the port; its own
 * messages (connect, connect response) are a few hundred bytes. The node's stacks use this class wherever they name
 * FD_SOCK2.
 */
public class BoundedFdSock extends FD_SOCK2 {

    /** The largest frame the failure-detection server accepts: far above its messages, far below harm. */
    public static final int MAX_FRAME = 16 * 1024;

    /** Takes FD_SOCK2's id, so that its headers are those of FD_SOCK2 on every member, whichever class it runs. */
    public BoundedFdSock() {
        setId(ClassConfigurator.getProtocolId(FD_SOCK2.class));
    }

    @Override
    protected NioServer createServer(int[] bindPorts) {
        NioServer server = super.createServer(bindPorts);
        if (server != null) {
            server.setMaxLength(MAX_FRAME);
        }
        return server;
    }
}
