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
        int v = value;
        while ((v & ~0x7F) != 0) {
            buf[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[size++] = (byte) v;
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
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        varInt(bytes.length);
        write(bytes, 0, bytes.length);
        return this;
    }

    /**
     * Writes a string that may be null.
     *
     * @param value the string or null
     * @return this writer
     */
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
}
