package dev.sharding.bench;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Finds where an HTTP/1.1 response ends in the bytes read so far, without blocking and without copying: the status
 * line and headers, then a body of {@code Content-Length} bytes or chunked. The load generator calls it each time
 * more bytes arrived on a connection, and takes the response once it is complete.
 */
final class HttpResponses {

    private HttpResponses() {}

    /**
     * A complete response in a buffer.
     *
     * @param length its bytes from the start, headers and body
     * @param status the status code
     * @param keepAlive false when the server closes the connection after it
     * @param bodyStart where the body starts
     * @param chunked whether the body is chunked (else it is the bytes from bodyStart to length)
     */
    record Parsed(int length, int status, boolean keepAlive, int bodyStart, boolean chunked) {

        /** {@return the body, de-chunked when needed} */
        byte[] body(byte[] buf, int off) {
            if (!chunked) {
                byte[] b = new byte[length - bodyStart];
                System.arraycopy(buf, off + bodyStart, b, 0, b.length);
                return b;
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int p = off + bodyStart;
            while (true) {
                int eol = lineEnd(buf, p, off + length);
                long size = chunkSize(buf, p, eol);
                p = eol + 2;
                if (size <= 0) {
                    return out.toByteArray();
                }
                out.write(buf, p, (int) size);
                p += (int) size + 2;
            }
        }
    }

    /**
     * Parses the response that starts at {@code off}.
     *
     * @return the response, or null while it is incomplete
     * @throws IllegalStateException if the bytes are not an HTTP/1.x response this parser knows
     */
    static @Nullable Parsed parse(byte[] buf, int off, int len) {
        int end = off + len;
        int eol = lineEnd(buf, off, end);
        if (eol < 0) {
            return null;
        }
        String status = new String(buf, off, eol - off, StandardCharsets.ISO_8859_1);
        if (!status.startsWith("HTTP/1.") || status.length() < 12) {
            throw new IllegalStateException("Not an HTTP/1.x status line: " + status);
        }
        int code = Integer.parseInt(status.substring(9, 12));
        boolean keepAlive = status.startsWith("HTTP/1.1");
        long contentLength = -1;
        boolean chunked = false;
        int p = eol + 2;
        while (true) {
            eol = lineEnd(buf, p, end);
            if (eol < 0) {
                return null;
            }
            if (eol == p) {
                p += 2;
                break;
            }
            String h = new String(buf, p, eol - p, StandardCharsets.ISO_8859_1);
            int colon = h.indexOf(':');
            if (colon > 0) {
                String name = h.substring(0, colon).trim();
                String value = h.substring(colon + 1).trim();
                if (name.equalsIgnoreCase("content-length")) {
                    contentLength = Long.parseLong(value);
                } else if (name.equalsIgnoreCase("transfer-encoding")) {
                    chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                } else if (name.equalsIgnoreCase("connection")) {
                    keepAlive = !value.equalsIgnoreCase("close");
                }
            }
            p = eol + 2;
        }
        int bodyStart = p - off;
        if (chunked) {
            while (true) {
                eol = lineEnd(buf, p, end);
                if (eol < 0) {
                    return null;
                }
                long size = chunkSize(buf, p, eol);
                p = eol + 2;
                if (size == 0) {
                    // trailers, then the empty line
                    while (true) {
                        eol = lineEnd(buf, p, end);
                        if (eol < 0) {
                            return null;
                        }
                        boolean empty = eol == p;
                        p = eol + 2;
                        if (empty) {
                            return new Parsed(p - off, code, keepAlive, bodyStart, true);
                        }
                    }
                }
                if (p + size + 2 > end) {
                    return null;
                }
                p += (int) size + 2;
            }
        }
        if (contentLength < 0 && code >= 200 && code != 204 && code != 304) {
            throw new IllegalStateException("A response without length: status " + code);
        }
        long total = (long) bodyStart + Math.max(0, contentLength);
        return total > len ? null : new Parsed((int) total, code, keepAlive, bodyStart, false);
    }

    /** {@return the index of the CR of the first CRLF from {@code from}, or -1} */
    private static int lineEnd(byte[] buf, int from, int end) {
        for (int i = from; i + 1 < end; i++) {
            if (buf[i] == '\r' && buf[i + 1] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static long chunkSize(byte[] buf, int from, int eol) {
        String l = new String(buf, from, eol - from, StandardCharsets.ISO_8859_1);
        int semi = l.indexOf(';');
        return Long.parseLong((semi < 0 ? l : l.substring(0, semi)).trim(), 16);
    }
}
