package dev.sharding.store;

import java.lang.reflect.Field;
import java.net.Socket;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes the sockets of an H2 client connection (to another process's server: {@code AUTO_SERVER}, or
 * {@code jdbc:h2:tcp://}), the only way to free a thread blocked reading from a server that does not answer: H2's
 * {@link Connection#abort} does nothing, its {@link Connection#close} waits for the blocked thread, and its client
 * has no read timeout unless the URL sets {@code NETWORK_TIMEOUT}. Reaches H2's session and sockets by reflection
 * (H2 2.x: {@code JdbcConnection.getSession()}, {@code SessionRemote.transferList}, {@code Transfer.socket}), only
 * when a connection has passed its deadline; an H2 of another shape is reported, not failed on.
 */
final class H2Sockets {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    private static final String REMOTE_SESSION = "org.h2.engine.SessionRemote";

    private H2Sockets() {}

    /**
     * Closes the sockets of a connection when it is an H2 client connection.
     *
     * @param connection the connection, possibly a pool's proxy
     * @return whether it was an H2 client connection whose sockets were closed
     */
    static boolean close(Connection connection) {
        try {
            boolean closed = false;
            for (Socket socket : sockets(connection)) {
                socket.close();
                closed = true;
            }
            return closed;
        } catch (ReflectiveOperationException | RuntimeException | java.io.IOException e) {
            LOG.warn(
                    "Could not close the sockets of an H2 connection that passed its deadline (an H2 version this"
                            + " store does not know?); its thread stays blocked until the server answers: {}",
                    e.toString());
            return false;
        }
    }

    /**
     * Gives the sockets of an H2 client connection a read timeout when they have none (no {@code NETWORK_TIMEOUT} in
     * the URL), as other drivers' network timeouts: H2's client then gives up by itself on a server that stopped
     * answering, wherever it waits, also in a pool's validation of the connection after the store gave it back
     * (which the store's watchdog does not see). The connection keeps it; a URL's own {@code NETWORK_TIMEOUT} is
     * left as it is.
     *
     * @param connection the connection, possibly a pool's proxy
     * @param millis the read timeout
     */
    static void ensureReadTimeout(Connection connection, int millis) {
        try {
            for (Socket socket : sockets(connection)) {
                if (socket.getSoTimeout() == 0) {
                    socket.setSoTimeout(millis);
                }
            }
        } catch (ReflectiveOperationException | RuntimeException | java.io.IOException e) {
            LOG.debug("Could not give an H2 connection's sockets a read timeout: {}", e.toString());
        }
    }

    /** The sockets of an H2 client connection; none for another connection. */
    private static List<Socket> sockets(Connection connection) throws ReflectiveOperationException {
        Object h2;
        try {
            h2 = connection.unwrap(Connection.class);
        } catch (SQLException | RuntimeException e) {
            return List.of();
        }
        if (!h2.getClass().getName().equals("org.h2.jdbc.JdbcConnection")) {
            return List.of();
        }
        Object session = h2.getClass().getMethod("getSession").invoke(h2);
        if (session == null || !session.getClass().getName().equals(REMOTE_SESSION)) {
            return List.of(); // the process serves the file itself: no socket to hang on
        }
        Field transfers = session.getClass().getDeclaredField("transferList");
        transfers.setAccessible(true);
        Object list = transfers.get(session);
        if (!(list instanceof List<?> open)) {
            return List.of();
        }
        List<Socket> sockets = new java.util.ArrayList<>();
        for (Object transfer : open.toArray()) {
            Field socketField = transfer.getClass().getDeclaredField("socket");
            socketField.setAccessible(true);
            if (socketField.get(transfer) instanceof Socket socket) {
                sockets.add(socket);
            }
        }
        return sockets;
    }
}
