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
 * One keep-alive HTTP/1.1 connection of the H workloads' load generator, on a plain blocking socket: writes a request
 * in one write and reads the whole response (status line, headers, a body of {@code Content-Length} bytes or chunked),
 * the way {@code wrk} does, without the allocation and thread hand-offs of a general client. When the server ends the
 * connection ({@code Connection: close}, as Tomcat does after 100 requests on one connection), the next request opens
 * a new one.
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
        this.hostHeader = ("Host: " + host + ":" + port + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** {@return the POST of a deposit, as bytes} */
    byte[] deposit(String accountId, long amount) {
        String body = "{\"amount\":" + amount + "}";
        return request(
                "POST /accounts/" + accountId + "/deposit HTTP/1.1\r\n",
                "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
    }

    /** {@return the GET of a balance, as bytes} */
    byte[] balance(String accountId) {
        return request("GET /accounts/" + accountId + " HTTP/1.1\r\n", "\r\n");
    }

    private byte[] request(String line, String rest) {
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

    /** Reads HTTP/1.1 responses from a stream, with a buffer of its own. */
    static final class ResponseReader {

        private final InputStream in;

        private final byte[] buf = new byte[16 * 1024];

        private int pos;

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
            String status = line();
            if (!status.startsWith("HTTP/1.")) {
                throw new IOException("Not an HTTP/1.x status line: " + status);
            }
            int code = Integer.parseInt(status.substring(9, 12));
            boolean keepAlive = status.startsWith("HTTP/1.1");
            long length = -1;
            boolean chunked = false;
            for (String h = line(); !h.isEmpty(); h = line()) {
                int colon = h.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String name = h.substring(0, colon).trim();
                String value = h.substring(colon + 1).trim();
                if (name.equalsIgnoreCase("content-length")) {
                    length = Long.parseLong(value);
                } else if (name.equalsIgnoreCase("transfer-encoding")) {
                    chunked = value.toLowerCase(java.util.Locale.ROOT).contains("chunked");
                } else if (name.equalsIgnoreCase("connection")) {
                    keepAlive = !value.equalsIgnoreCase("close");
                }
            }
            java.io.ByteArrayOutputStream body = keepBody ? new java.io.ByteArrayOutputStream() : null;
            if (chunked) {
                for (long size = chunkSize(); size > 0; size = chunkSize()) {
                    copy(size, body);
                    line();
                }
                while (!line().isEmpty()) {
                    // trailers
                }
            } else if (length >= 0) {
                copy(length, body);
            } else if (code >= 200 && code != 204 && code != 304) {
                throw new IOException("A response without length: status " + code);
            }
            return new Response(code, keepAlive, body == null ? null : body.toByteArray());
        }

        private long chunkSize() throws IOException {
            String l = line();
            int semi = l.indexOf(';');
            return Long.parseLong((semi < 0 ? l : l.substring(0, semi)).trim(), 16);
        }

        private void copy(long n, java.io.@Nullable ByteArrayOutputStream to) throws IOException {
            while (n > 0) {
                fill();
                int k = (int) Math.min(n, limit - pos);
                if (to != null) {
                    to.write(buf, pos, k);
                }
                pos += k;
                n -= k;
            }
        }

        private String line() throws IOException {
            StringBuilder b = new StringBuilder(64);
            while (true) {
                fill();
                byte c = buf[pos++];
                if (c == '\n') {
                    int len = b.length();
                    if (len > 0 && b.charAt(len - 1) == '\r') {
                        b.setLength(len - 1);
                    }
                    return b.toString();
                }
                b.append((char) (c & 0xff));
            }
        }

        private void fill() throws IOException {
            if (pos < limit) {
                return;
            }
            int n = in.read(buf, 0, buf.length);
            if (n < 0) {
                throw new EOFException("Connection closed by the server");
            }
            pos = 0;
            limit = n;
        }
    }
}
