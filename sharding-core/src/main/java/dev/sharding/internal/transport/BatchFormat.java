package dev.sharding.internal.transport;

import org.jspecify.annotations.Nullable;

/**
 * How several frames to one member travel in one JGroups message: {@link #MAGIC}, then for each frame its length as
 * an unsigned varint and its bytes. A frame's own first byte is never {@link #MAGIC}, so a receiver can tell a batch
 * from a lone frame.
 */
public final class BatchFormat {

    /** The first byte of a batch. */
    public static final byte MAGIC = 0x5E;

    private BatchFormat() {}

    /**
     * Splits a batch and hands each frame to {@code sink}.
     *
     * @param buffer the array holding the batch
     * @param offset where it starts (at {@link #MAGIC})
     * @param length its length
     * @param sink gets each frame as a slice of {@code buffer}
     * @return null when the batch was whole, else why the rest of it was dropped
     */
    static @Nullable String unpack(byte[] buffer, int offset, int length, FrameSink sink) {
        int pos = offset + 1;
        int end = offset + length;
        while (pos < end) {
            int len = 0;
            int shift = 0;
            while (true) {
                if (pos >= end || shift > 28) {
                    return "truncated frame length";
                }
                int b = buffer[pos++];
                len |= (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    break;
                }
                shift += 7;
            }
            if (len <= 0 || len > end - pos) {
                return "frame length " + len + " beyond the batch";
            }
            sink.frame(buffer, pos, len);
            pos += len;
        }
        return null;
    }

    /** Gets the frames of a batch. */
    public interface FrameSink {
        /**
         * One frame.
         *
         * @param buffer the array
         * @param offset where the frame starts
         * @param length its length
         */
        void frame(byte[] buffer, int offset, int length);
    }
}
