package dev.sharding.internal.codec;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;

/**
 * A few strings a receiver expects over and over (entity type names, message class names), found by their UTF-8
 * bytes so that reading one makes no new {@code String}.
 */
public final class KnownStrings {

    private static final KnownStrings NONE = new KnownStrings(java.util.List.of());

    private final String[] strings;

    private final byte[][] bytes;

    /**
     * Creates the set.
     *
     * @param strings the strings; a string's index is its place in this collection
     */
    public KnownStrings(Collection<String> strings) {
        this.strings = strings.toArray(String[]::new);
        this.bytes = new byte[this.strings.length][];
        for (int i = 0; i < this.strings.length; i++) {
            this.bytes[i] = this.strings[i].getBytes(StandardCharsets.UTF_8);
        }
    }

    /**
     * The empty set.
     *
     * @return it
     */
    public static KnownStrings none() {
        return NONE;
    }

    /**
     * The index of the string whose UTF-8 encoding these bytes are.
     *
     * @param buf the array
     * @param offset where the bytes start
     * @param length how many
     * @return the index, or -1 if none
     */
    public int indexOf(byte[] buf, int offset, int length) {
        for (int i = 0; i < bytes.length; i++) {
            byte[] b = bytes[i];
            if (b.length == length && Arrays.equals(b, 0, length, buf, offset, offset + length)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The string at an index.
     *
     * @param index from {@link #indexOf(byte[], int, int)}
     * @return the string
     */
    public String get(int index) {
        return strings[index];
    }
}
