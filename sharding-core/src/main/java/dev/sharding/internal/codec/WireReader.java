package dev.sharding.internal.codec;

import dev.sharding.Member;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Reads what {@link WireWriter} wrote, checking every length against the bytes that are there: a truncated or garbage
 * frame gives a {@link MalformedFrameException}, never an out-of-bounds read or a huge allocation.
 */
public final class WireReader {

    /** The longest string a frame may carry (type names, ids, node names, error messages). */
    public static final int MAX_STRING_BYTES = 64 * 1024;

    private final byte[] buf;

    private int pos;

    private final int end;

    /**
     * Creates a reader over a slice of an array.
     *
     * @param buf the array
     * @param offset where the frame starts
     * @param length its length
     */
    public WireReader(byte[] buf, int offset, int length) {
        if (offset < 0 || length < 0 || offset + length > buf.length) {
            throw new MalformedFrameException("Frame bounds out of range");
        }
        this.buf = buf;
        this.pos = offset;
        this.end = offset + length;
    }

    private void need(int n) {
        if (n < 0 || end - pos < n) {
            throw new MalformedFrameException(
                    "Frame truncated: needed " + n + " bytes at " + pos + ", have " + (end - pos));
        }
    }

    /**
     * Reads one unsigned byte.
     *
     * @return the byte, 0 to 255
     */
    public int byte8() {
        need(1);
        return buf[pos++] & 0xFF;
    }

    /**
     * Reads a boolean.
     *
     * @return the value
     */
    public boolean bool() {
        int b = byte8();
        if (b > 1) {
            throw new MalformedFrameException("Bad boolean " + b);
        }
        return b == 1;
    }

    /**
     * Reads an unsigned variable-length int.
     *
     * @return the value
     */
    public int varInt() {
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            int b = byte8();
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                if (value < 0) {
                    throw new MalformedFrameException("Negative length");
                }
                return value;
            }
        }
        throw new MalformedFrameException("Variable-length int too long");
    }

    /**
     * Reads a big-endian long.
     *
     * @return the value
     */
    public long int64() {
        need(8);
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (buf[pos++] & 0xFF);
        }
        return v;
    }

    /**
     * Reads a string.
     *
     * @return the string
     */
    public String string() {
        return string(MAX_STRING_BYTES);
    }

    /**
     * Reads a string no longer than a limit of its own, checked before anything is allocated.
     *
     * @param maxBytes the most UTF-8 bytes allowed
     * @return the string
     */
    public String string(int maxBytes) {
        int len = varInt();
        if (len > maxBytes) {
            throw new MalformedFrameException("String of " + len + " bytes is over the limit of " + maxBytes);
        }
        need(len);
        String s = new String(buf, pos, len, StandardCharsets.UTF_8);
        pos += len;
        return s;
    }

    /**
     * Reads a string, giving the known instance when it is one of {@code known}.
     *
     * @param known the strings expected
     * @return the string
     */
    public String string(KnownStrings known) {
        int start = pos;
        int len = varInt();
        if (len > MAX_STRING_BYTES) {
            throw new MalformedFrameException("String of " + len + " bytes is over the limit");
        }
        need(len);
        int i = known.indexOf(buf, pos, len);
        if (i >= 0) {
            pos += len;
            return known.get(i);
        }
        pos = start;
        return string();
    }

    /**
     * Reads a string that may be null.
     *
     * @return the string or null
     */
    public @Nullable String nullableString() {
        return bool() ? string() : null;
    }

    /**
     * Reads a member.
     *
     * @return the member
     */
    public Member member() {
        long hi = int64();
        long lo = int64();
        return new Member(hi, lo, string());
    }

    /**
     * Reads the length of a byte block and checks the bytes are there; the caller takes them from
     * {@link #array()} at {@link #position()} and then calls {@link #skip(int)}.
     *
     * @param max the largest length allowed
     * @return the length
     */
    public int blockLength(int max) {
        int len = varInt();
        if (len > max) {
            throw new MalformedFrameException("Block of " + len + " bytes is over the limit of " + max);
        }
        need(len);
        return len;
    }

    /**
     * Reads a length-prefixed block of bytes into a new array.
     *
     * @param max the largest length allowed
     * @return the bytes
     */
    public byte[] bytes(int max) {
        int len = blockLength(max);
        byte[] out = new byte[len];
        System.arraycopy(buf, pos, out, 0, len);
        pos += len;
        return out;
    }

    /**
     * Moves past bytes.
     *
     * @param n how many
     */
    public void skip(int n) {
        need(n);
        pos += n;
    }

    /**
     * The underlying array.
     *
     * @return the array
     */
    public byte[] array() {
        return buf;
    }

    /**
     * The read position in the array.
     *
     * @return the position
     */
    public int position() {
        return pos;
    }

    /**
     * The bytes left.
     *
     * @return the count
     */
    public int remaining() {
        return end - pos;
    }

    /**
     * Checks nothing is left.
     */
    public void expectEnd() {
        if (pos != end) {
            throw new MalformedFrameException((end - pos) + " unexpected bytes after the frame");
        }
    }
}
