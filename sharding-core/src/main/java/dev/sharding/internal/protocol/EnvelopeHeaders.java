package dev.sharding.internal.protocol;

import static dev.sharding.spi.MessageTracing.MAX_HEADERS;
import static dev.sharding.spi.MessageTracing.MAX_KEY_BYTES;
import static dev.sharding.spi.MessageTracing.MAX_VALUE_BYTES;

import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The headers block of an {@link EntityEnvelope} (since protocol version 6): string pairs that travel beside the
 * message, today the trace context of a traced message ({@link dev.sharding.spi.MessageTracing}), tomorrow whatever
 * else needs to cross with it. On the wire: the number of pairs as a variable-length int (1 to
 * {@value dev.sharding.spi.MessageTracing#MAX_HEADERS}), then each name and value as a string; a name is 1 to
 * {@value dev.sharding.spi.MessageTracing#MAX_KEY_BYTES} UTF-8 bytes, a value at most
 * {@value dev.sharding.spi.MessageTracing#MAX_VALUE_BYTES}, and no name appears twice. A block that breaks a limit
 * makes the frame malformed; the sender leaves out what would break one ({@link #sendable}), so that only a frame
 * from a foreign or broken sender is refused.
 */
public final class EnvelopeHeaders {

    private static final Logger log = LoggerFactory.getLogger(EnvelopeHeaders.class);

    private static final AtomicLong leftOut = new AtomicLong();

    private EnvelopeHeaders() {}

    /**
     * The headers a sender may carry: those of {@code headers} within the limits, in their order, at most
     * {@value dev.sharding.spi.MessageTracing#MAX_HEADERS}; the others are left out and logged (at the first and
     * then at every power of two).
     *
     * @param headers the headers a tracer gave
     * @return an unmodifiable copy, or {@code null} when none is left
     */
    public static @Nullable Map<String, String> sendable(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return null;
        }
        Map<String, String> kept = new LinkedHashMap<>(Math.min(headers.size(), MAX_HEADERS) * 2);
        for (Map.Entry<String, String> e : headers.entrySet()) {
            String key = e.getKey();
            String value = e.getValue();
            if (kept.size() == MAX_HEADERS
                    || key == null
                    || value == null
                    || key.isEmpty()
                    || utf8Length(key) > MAX_KEY_BYTES
                    || utf8Length(value) > MAX_VALUE_BYTES) {
                long n = leftOut.incrementAndGet();
                if (n == 1 || Long.bitCount(n) == 1) {
                    log.warn(
                            "Left out a message header ({} so far): {} (at most {} headers, names of 1 to {} bytes,"
                                    + " values of at most {} bytes)",
                            n,
                            key == null ? "a null name" : "[" + abbreviate(key) + "]",
                            MAX_HEADERS,
                            MAX_KEY_BYTES,
                            MAX_VALUE_BYTES);
                }
                continue;
            }
            kept.put(key, value);
        }
        return kept.isEmpty() ? null : Collections.unmodifiableMap(kept);
    }

    static void write(WireWriter out, Map<String, String> headers) {
        out.varInt(headers.size());
        for (Map.Entry<String, String> e : headers.entrySet()) {
            out.string(e.getKey()).string(e.getValue());
        }
    }

    static Map<String, String> read(WireReader in) {
        int count = in.varInt();
        if (count < 1 || count > MAX_HEADERS) {
            throw new MalformedFrameException(
                    "Envelope with " + count + " headers: a headers block holds 1 to " + MAX_HEADERS);
        }
        Map<String, String> headers = new HashMap<>(count * 2);
        for (int i = 0; i < count; i++) {
            String key;
            String value;
            try {
                key = in.string(MAX_KEY_BYTES);
                value = in.string(MAX_VALUE_BYTES);
            } catch (MalformedFrameException e) {
                throw new MalformedFrameException(
                        "Envelope header " + (i + 1) + " of " + count + ": " + e.getMessage());
            }
            if (key.isEmpty()) {
                throw new MalformedFrameException("Envelope header " + (i + 1) + " of " + count + " has no name");
            }
            if (headers.put(key, value) != null) {
                throw new MalformedFrameException("Envelope header [" + key + "] appears twice");
            }
        }
        return Collections.unmodifiableMap(headers);
    }

    /** The length of a string in UTF-8, without encoding it. */
    static int utf8Length(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "…";
    }
}
