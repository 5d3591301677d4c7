package dev.sharding.internal.codec;

import dev.sharding.Member;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A growable byte buffer with the few primitives our frames are made of: bytes, variable-length ints, longs, UTF-8
 * strings and members. Not thread-safe; one per frame being written.
 */
public final class WireWriter extends OutputStream {

    private byte[] buf;

    private int size;

    /**
     * Creates a writer.
     *
     * @param initialCapacity the initial capacity in bytes
     */
    public WireWriter(int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    private void ensure(int extra) {
        int needed = size + extra;
        if (needed > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(needed, buf.length * 2));
        }
    }

    @Override
    public void write(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, size, len);
        size += len;
    }

    /**
     * Writes an unsigned variable-length int (7 bits a byte).
     *
     * @param value the value, not negative
     * @return this writer
     */
    public WireWriter varInt(int value) {
        ensure(5);
        size = Varints.write(buf, size, value);
        return this;
    }

    /**
     * Writes a long, big-endian.
     *
     * @param value the value
     * @return this writer
     */
    public WireWriter int64(long value) {
        ensure(8);
        for (int i = 7; i >= 0; i--) {
            buf[size++] = (byte) (value >>> (i * 8));
        }
        return this;
    }

    /**
     * Writes one byte.
     *
     * @param value the byte
     * @return this writer
     */
    public WireWriter byte8(int value) {
        write(value);
        return this;
    }

    /**
     * Writes a boolean as one byte.
     *
     * @param value the value
     * @return this writer
     */
    public WireWriter bool(boolean value) {
        write(value ? 1 : 0);
        return this;
    }

    /**
     * Writes a string as its UTF-8 length and bytes.
     *
     * @param value the string
     * @return this writer
     */
    public WireWriter string(String value) {
        int n = value.length();
        if (n < 128) {
            // the common case, ASCII ids and names: written straight from the chars, no byte array made
            int i = 0;
            while (i < n && value.charAt(i) < 0x80) {
                i++;
            }
            if (i == n) {
                ensure(1 + n);
                buf[size++] = (byte) n;
                for (int j = 0; j < n; j++) {
                    buf[size++] = (byte) value.charAt(j);
                }
                return this;
            }
        }
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        varInt(bytes.length);
        write(bytes, 0, bytes.length);
        return this;
    }

    public WireWriter nullableString(@Nullable String value) {
        bool(value != null);
        if (value != null) {
            string(value);
        }
        return this;
    }

    /**
     * Writes length-prefixed bytes.
     *
     * @param bytes the bytes
     * @return this writer
     */
    public WireWriter bytes(byte[] bytes) {
        varInt(bytes.length);
        write(bytes, 0, bytes.length);
        return this;
    }

    /**
     * Writes a member: its id and name.
     *
     * @param member the member
     * @return this writer
     */
    public WireWriter member(Member member) {
        int64(member.mostSignificantBits());
        int64(member.leastSignificantBits());
        string(member.name());
        return this;
    }

    /**
     * The number of bytes written.
     *
     * @return the size
     */
    public int size() {
        return size;
    }

    /**
     * The bytes written, copied to an array of exactly that size.
     *
     * @return the bytes
     */
    public byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    /**
     * Empties the writer so that it can be used again; keeps its buffer unless that grew beyond {@code maxKept}.
     *
     * @param maxKept the largest buffer worth keeping
     * @return this writer
     */
    public WireWriter reset(int maxKept) {
        size = 0;
        if (buf.length > maxKept) {
            buf = new byte[maxKept];
        }
        return this;
    }

    /**
     * A writer per thread to encode into before the exact-size copy, so that encoding allocates that copy only. A
     * thread that encodes again while its writer is taken (a serializer sending a message) gets a new writer.
     */
    public static final class Scratch {

        private static final int KEPT = 16 * 1024;

        private final ThreadLocal<Holder> local = ThreadLocal.withInitial(Holder::new);

        /**
         * Takes this thread's writer, empty.
         *
         * @return the writer; give it back with {@link #release(WireWriter)}
         */
        public WireWriter acquire() {
            Holder h = local.get();
            if (h.taken) {
                return new WireWriter(256);
            }
            h.taken = true;
            return h.writer.reset(KEPT);
        }

        /**
         * Gives a writer back.
         *
         * @param writer the writer {@link #acquire()} returned
         */
        public void release(WireWriter writer) {
            Holder h = local.get();
            if (h.writer == writer) {
                h.taken = false;
            }
        }

        private static final class Holder {

            final WireWriter writer = new WireWriter(1024);

            boolean taken;
        }
    }
}
