package dev.sharding.bench;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * One keep-alive HTTP/1.1 connection on a plain blocking socket, for the balance reads after an H run: writes a
 * request in one write and reads the whole response ({@link HttpResponses}). When the server ends the connection
 * ({@code Connection: close}, as Tomcat does after 100 requests on one connection), the next request opens a new one.
 * Also builds the requests of the load generator ({@link LoadLoop}).
 */
final class HttpConnection implements Closeable {

    private final String host;

    private final int port;

    private final int timeoutMillis;

    private final byte[] hostHeader;

    private @Nullable Socket socket;

    private @Nullable OutputStream out;

    private @Nullable ResponseReader in;

    private long connects;

    HttpConnection(String host, int port, int timeoutMillis) {
        this.host = host;
        this.port = port;
        this.timeoutMillis = timeoutMillis;
        this.hostHeader = hostHeader(host, port);
    }

    /** {@return the POST of a deposit, as bytes} */
    byte[] deposit(String accountId, long amount) {
        return depositRequest(hostHeader, accountId, amount);
    }

    /** {@return the GET of a balance, as bytes} */
    byte[] balance(String accountId) {
        return balanceRequest(hostHeader, accountId);
    }

    /** {@return the Host header line for a server on the loopback port} */
    static byte[] hostHeader(String host, int port) {
        return ("Host: " + host + ":" + port + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** {@return the POST of a deposit of {@code amount} to the account, as bytes} */
    static byte[] depositRequest(byte[] hostHeader, String accountId, long amount) {
        String body = "{\"amount\":" + amount + "}";
        return request(
                hostHeader,
                "POST /accounts/" + accountId + "/deposit HTTP/1.1\r\n",
                "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
    }

    /** {@return the GET of the account's balance, as bytes} */
    static byte[] balanceRequest(byte[] hostHeader, String accountId) {
        return request(hostHeader, "GET /accounts/" + accountId + " HTTP/1.1\r\n", "\r\n");
    }

    private static byte[] request(byte[] hostHeader, String line, String rest) {
        byte[] a = line.getBytes(StandardCharsets.US_ASCII);
        byte[] c = rest.getBytes(StandardCharsets.US_ASCII);
        byte[] r = new byte[a.length + hostHeader.length + c.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(hostHeader, 0, r, a.length, hostHeader.length);
        System.arraycopy(c, 0, r, a.length + hostHeader.length, c.length);
        return r;
    }

    /**
     * Sends a request and reads its response.
     *
     * @param request the request's bytes
     * @param keepBody whether to return the body (else it is read and dropped)
     * @return the response
     * @throws IOException if the connection failed or timed out; it is then closed, and the next call opens another
     */
    ResponseReader.Response exchange(byte[] request, boolean keepBody) throws IOException {
        if (socket == null) {
            open();
        }
        OutputStream o = java.util.Objects.requireNonNull(out);
        ResponseReader reader = java.util.Objects.requireNonNull(in);
        try {
            o.write(request);
            o.flush();
            ResponseReader.Response r = reader.read(keepBody);
            if (!r.keepAlive()) {
                close();
            }
            return r;
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Opens the connection unless it is open. */
    void connect() throws IOException {
        if (socket == null) {
            open();
        }
    }

    private void open() throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.setSoTimeout(timeoutMillis);
            s.connect(new InetSocketAddress(host, port), timeoutMillis);
        } catch (IOException e) {
            s.close();
            throw e;
        }
        socket = s;
        out = s.getOutputStream();
        in = new ResponseReader(s.getInputStream());
        connects++;
    }

    /** {@return how many times a connection was opened} */
    long connects() {
        return connects;
    }

    @Override
    public void close() {
        Socket s = socket;
        socket = null;
        out = null;
        in = null;
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    /** Reads HTTP/1.1 responses from a stream ({@link HttpResponses}), with a buffer of its own. */
    static final class ResponseReader {

        private final InputStream in;

        private byte[] buf = new byte[16 * 1024];

        private int start;

        private int limit;

        /**
         * A response.
         *
         * @param status the status code
         * @param keepAlive false when the server closes the connection after it
         * @param body the body, or null when not kept
         */
        record Response(int status, boolean keepAlive, byte @Nullable [] body) {

            /** {@return the body as text, "" when not kept} */
            String text() {
                return body == null ? "" : new String(body, StandardCharsets.UTF_8);
            }
        }

        ResponseReader(InputStream in) {
            this.in = in;
        }

        Response read(boolean keepBody) throws IOException {
            while (true) {
                HttpResponses.Parsed p;
                try {
                    p = HttpResponses.parse(buf, start, limit - start);
                } catch (IllegalStateException | NumberFormatException e) {
                    throw new IOException(e.getMessage(), e);
                }
                if (p != null) {
                    byte[] body = keepBody ? p.body(buf, start) : null;
                    start += p.length();
                    return new Response(p.status(), p.keepAlive(), body);
                }
                if (start > 0) {
                    System.arraycopy(buf, start, buf, 0, limit - start);
                    limit -= start;
                    start = 0;
                }
                if (limit == buf.length) {
                    buf = java.util.Arrays.copyOf(buf, buf.length * 2);
                }
                int n = in.read(buf, limit, buf.length - limit);
                if (n < 0) {
                    throw new EOFException("Connection closed by the server");
                }
                limit += n;
            }
        }
    }
}
