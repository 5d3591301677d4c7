package dev.sharding.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * The load on one node: one thread, one selector, {@code connections} non-blocking keep-alive connections, as
 * {@code wrk -t1} has. Each connection has one request in flight at a time and sends the next as soon as the answer is
 * complete ({@link HttpResponses}); a connection the server closes is opened again for the next request. A request
 * not answered within {@link HttpLoad#TIMEOUT_MILLIS} counts as failed and its connection is closed. Deposits answered
 * 200 are added to {@link #acked} per account, those without an answer or answered 5xx to {@link #uncertain}. Each
 * answer is counted in the phase in which it arrived; those after the last phase are only added up.
 */
final class LoadLoop implements Runnable {

    private static final long RETRY_NANOS = 10_000_000L;

    private final InetSocketAddress address;

    private final byte[] hostHeader;

    private final int accounts;

    private final String idPrefix;

    private final int readPercent;

    private final long phaseNanos;

    private final Conn[] conns;

    private final CountDownLatch connected;

    private final CountDownLatch go;

    final HttpLoad.PhaseTally[] tallies = new HttpLoad.PhaseTally[HttpLoad.PHASES.size()];

    final long[] acked;

    final long[] uncertain;

    volatile long start;

    long late;

    long connects;

    volatile boolean stopped;

    private @Nullable Selector selector;

    /** One connection and its request in flight. */
    private static final class Conn {

        @Nullable
        SocketChannel channel;

        byte[] in = new byte[16 * 1024];

        int inStart;

        int inLimit;

        boolean busy;

        long sentAt;

        long retryAt;

        int account;

        long amount;

        boolean read;
    }

    LoadLoop(
            int port,
            int connections,
            int accounts,
            String idPrefix,
            int readPercent,
            long phaseNanos,
            CountDownLatch connected,
            CountDownLatch go) {
        this.address = new InetSocketAddress("127.0.0.1", port);
        this.hostHeader = HttpConnection.hostHeader("127.0.0.1", port);
        this.accounts = accounts;
        this.idPrefix = idPrefix;
        this.readPercent = readPercent;
        this.phaseNanos = phaseNanos;
        this.connected = connected;
        this.go = go;
        this.acked = new long[accounts];
        this.uncertain = new long[accounts];
        this.conns = new Conn[connections];
        for (int i = 0; i < connections; i++) {
            conns[i] = new Conn();
        }
        for (int k = 0; k < tallies.length; k++) {
            tallies[k] = new HttpLoad.PhaseTally();
        }
    }

    @Override
    public void run() {
        try (Selector s = Selector.open()) {
            selector = s;
            for (Conn c : conns) {
                try {
                    open(c);
                } catch (IOException e) {
                    // the first request fails and is counted
                }
            }
            connected.countDown();
            go.await();
            loop(s);
        } catch (IOException e) {
            System.err.println("[bench] load generator on " + address + " failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            connected.countDown();
            for (Conn c : conns) {
                close(c);
            }
            stopped = true;
        }
    }

    private void loop(Selector s) throws IOException {
        long end = start + tallies.length * phaseNanos;
        long giveUp = end + HttpLoad.TIMEOUT_MILLIS * 1_000_000L + 5_000_000_000L;
        for (Conn c : conns) {
            send(c, System.nanoTime());
        }
        while (true) {
            long now = System.nanoTime();
            boolean busy = false;
            for (Conn c : conns) {
                if (c.busy && now - c.sentAt > HttpLoad.TIMEOUT_MILLIS * 1_000_000L) {
                    fail(c, now);
                }
                if (!c.busy && now < end && now >= c.retryAt) {
                    send(c, now);
                }
                busy |= c.busy;
            }
            if ((!busy && now >= end) || now > giveUp) {
                return;
            }
            s.select(10);
            for (SelectionKey key : s.selectedKeys()) {
                onReadable((Conn) key.attachment(), end);
            }
            s.selectedKeys().clear();
        }
    }

    private void onReadable(Conn c, long end) {
        SocketChannel ch = c.channel;
        if (ch == null) {
            return;
        }
        try {
            if (c.inStart > 0) {
                System.arraycopy(c.in, c.inStart, c.in, 0, c.inLimit - c.inStart);
                c.inLimit -= c.inStart;
                c.inStart = 0;
            }
            if (c.inLimit == c.in.length) {
                c.in = Arrays.copyOf(c.in, c.in.length * 2);
            }
            int n = ch.read(ByteBuffer.wrap(c.in, c.inLimit, c.in.length - c.inLimit));
            if (n < 0) {
                throw new IOException("closed by the server");
            }
            c.inLimit += n;
            HttpResponses.Parsed p = HttpResponses.parse(c.in, c.inStart, c.inLimit - c.inStart);
            if (p == null) {
                return;
            }
            c.inStart += p.length();
            long now = System.nanoTime();
            complete(c, p.status(), now);
            if (!p.keepAlive()) {
                close(c);
            }
            if (now < end) {
                send(c, now);
            }
        } catch (IOException | RuntimeException e) {
            fail(c, System.nanoTime());
        }
    }

    private void send(Conn c, long now) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        c.account = random.nextInt(accounts);
        c.read = readPercent > 0 && random.nextInt(100) < readPercent;
        c.amount = 1 + random.nextInt(100);
        String id = idPrefix + c.account;
        byte[] request = c.read
                ? HttpConnection.balanceRequest(hostHeader, id)
                : HttpConnection.depositRequest(hostHeader, id, c.amount);
        c.busy = true;
        c.sentAt = now;
        try {
            if (c.channel == null) {
                open(c);
            }
            SocketChannel ch = c.channel;
            ByteBuffer out = ByteBuffer.wrap(request);
            while (out.hasRemaining()) {
                if (ch.write(out) == 0) {
                    Thread.onSpinWait(); // a full socket buffer: not with requests this small
                }
            }
        } catch (IOException | RuntimeException e) {
            fail(c, System.nanoTime());
        }
    }

    private void open(Conn c) throws IOException {
        SocketChannel ch = SocketChannel.open();
        try {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.socket().connect(address, HttpLoad.TIMEOUT_MILLIS);
            ch.configureBlocking(false);
            ch.register(selector, SelectionKey.OP_READ, c);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        c.channel = ch;
        c.inStart = 0;
        c.inLimit = 0;
        connects++;
    }

    /** The request in flight failed: counted, the connection closed, the next one after a pause. */
    private void fail(Conn c, long now) {
        if (c.busy) {
            complete(c, -1, now);
        }
        close(c);
        // a node that refuses connections would otherwise be hammered in a tight loop
        c.retryAt = now + RETRY_NANOS;
    }

    private void complete(Conn c, int status, long now) {
        c.busy = false;
        if (!c.read) {
            if (status >= 200 && status < 300) {
                acked[c.account] += c.amount;
            } else if (status < 400 || status >= 500) {
                uncertain[c.account] += c.amount;
            }
        }
        int phase = (int) ((now - start) / phaseNanos);
        if (phase >= tallies.length) {
            late++;
            return;
        }
        HttpLoad.PhaseTally t = tallies[phase];
        (c.read ? t.reads : t.deposits).recordValue(Math.max(1, (now - c.sentAt) / 1_000));
        if (status < 0) {
            t.ioErrors++;
        } else if (status < 300) {
            t.ok++;
        } else if (status < 500) {
            t.clientErrors++;
        } else {
            t.serverErrors++;
        }
    }

    private static void close(Conn c) {
        SocketChannel ch = c.channel;
        c.channel = null;
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }
}
