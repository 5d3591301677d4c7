package dev.sharding.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on loopback in front of a database that can black-hole: it keeps accepting connections but forwards
 * nothing, in either direction, and sends no reset or end, as a firewall that drops packets (or a database whose
 * process is stopped) looks to its clients; then it resumes. A connection that had bytes to forward while the hole was
 * open stays silent after the resume, as a TCP connection whose retransmission timer has backed off past the outage
 * does for up to two minutes: recovery must not wait for the connections the outage caught. A connection opened during
 * the hole is connected to the database only after the resume, as a new one would be.
 */
final class BlackHoleProxy implements AutoCloseable {

    private final ServerSocket server;

    private final InetSocketAddress target;

    private final Object lock = new Object();

    private boolean holed;

    /** Incremented by each hole: a connection that waited through hole n is caught by it. */
    private int hole;

    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    /**
     * Starts the proxy.
     *
     * @param target the database's address
     * @throws IOException when no port can be bound
     */
    BlackHoleProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accepter = new Thread(this::accept, "black-hole-proxy-accept");
        accepter.setDaemon(true);
        accepter.start();
    }

    /** @return the port clients connect to */
    int port() {
        return server.getLocalPort();
    }

    /** Stops forwarding, from now on. */
    void blackHole() {
        synchronized (lock) {
            holed = true;
            hole++;
        }
    }

    /** Forwards again, except on the connections the hole caught. */
    void resume() {
        synchronized (lock) {
            holed = false;
            lock.notifyAll();
        }
    }

    /**
     * Waits while the hole is open.
     *
     * @return whether a hole was open, so that the caller was caught by it
     */
    private boolean passHole() throws InterruptedException {
        synchronized (lock) {
            boolean caught = holed;
            while (holed) {
                lock.wait();
            }
            return caught;
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                sockets.add(client);
                Thread t = new Thread(() -> connect(client), "black-hole-proxy-connect");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void connect(Socket client) {
        try {
            passHole();
            Socket upstream = new Socket();
            sockets.add(upstream);
            upstream.connect(target);
            pump(client, upstream, "black-hole-proxy-up");
            pump(upstream, client, "black-hole-proxy-down");
        } catch (IOException | InterruptedException e) {
            closeQuietly(client);
        }
    }

    private void pump(Socket from, Socket to, String name) {
        Thread t = new Thread(
                () -> {
                    byte[] buffer = new byte[16 * 1024];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        for (int n; (n = in.read(buffer)) >= 0; ) {
                            if (passHole()) {
                                // caught: its retransmissions come long after the outage; until then, silence
                                Thread.sleep(Long.MAX_VALUE);
                            }
                            out.write(buffer, 0, n);
                            out.flush();
                        }
                    } catch (IOException | InterruptedException e) {
                        // closed
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                name);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }
}
