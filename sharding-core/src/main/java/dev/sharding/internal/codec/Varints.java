package dev.sharding.internal.codec;

/**
 * Unsigned variable-length ints, 7 bits a byte, low bits first, the high bit set on every byte but the last: the one
 * encoding of lengths and small numbers in frames ({@link WireWriter}, {@link WireReader}) and in the transport's
 * batches of frames.
 */
public final class Varints {

    private Varints() {}

    /**
     * The size of a value's encoding.
     *
     * @param value the value, not negative
     * @return its size in bytes, 1 to 5
     */
    public static int size(int value) {
        int n = 1;
        while ((value >>>= 7) != 0) {
            n++;
        }
        return n;
    }

    /**
     * Writes a value.
     *
     * @param out the array, with {@link #size(int)} bytes free at {@code pos}
     * @param pos where
     * @param value the value, not negative
     * @return the position after it
     */
    public static int write(byte[] out, int pos, int value) {
        int v = value;
        while ((v & ~0x7F) != 0) {
            out[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out[pos++] = (byte) v;
        return pos;
    }
}
