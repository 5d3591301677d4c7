package dev.sharding.internal.entity;

import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The ids of the messages an entity applied lately, each with its encoded reply: a window bounded by count and age,
 * stored with the entity's state in one transaction, so that a message retried with the same id gets the recorded
 * reply instead of being applied again, whether the entity stayed, moved, or its node crashed in between.
 *
 * <p>Immutable: {@link #plus} makes the window to store, which becomes the entity's once the write is durable.
 *
 * <p>Stored form: a format byte (2), the number of entries, then each entry oldest first: id, when it was applied
 * (epoch milliseconds), the message's fingerprint, and the reply (absent for a handler that returned nothing). Format 1,
 * written before fingerprints were kept, has no fingerprint: its entries match any message.
 */
public final class AppliedMessages {

    /** The empty window. */
    public static final AppliedMessages NONE = new AppliedMessages(Map.of());

    private static final int FORMAT = 2;

    private static final int FORMAT_WITHOUT_FINGERPRINTS = 1;

    /** The fingerprint of a message that has none: it matches any message. */
    static final long NO_FINGERPRINT = 0;

    /**
     * One applied message.
     *
     * @param id the message id the sender gave
     * @param appliedAtMillis when its state change was stored (epoch milliseconds)
     * @param fingerprint a hash of the message's encoding ({@link #fingerprint}), or {@link #NO_FINGERPRINT}
     * @param reply the encoded reply, or {@code null} when the handler returned nothing
     */
    record Entry(String id, long appliedAtMillis, long fingerprint, byte @Nullable [] reply) {

        /**
         * Whether the entry may stand for a message of this fingerprint: the same one, or either unknown.
         *
         * @param other the fingerprint of the message sent again
         * @return false when the id was applied to another message
         */
        boolean matches(long other) {
            return fingerprint == NO_FINGERPRINT || other == NO_FINGERPRINT || fingerprint == other;
        }
    }

    /**
     * A 64-bit fingerprint of a message's encoding (FNV-1a, then mixed), never {@link #NO_FINGERPRINT}: enough to tell
     * a message sent again from another message sent under the same id by mistake.
     *
     * @param encoded the message as the codec encodes it
     * @return the fingerprint
     */
    static long fingerprint(byte[] encoded) {
        long h = 0xcbf29ce484222325L;
        for (byte b : encoded) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return h == NO_FINGERPRINT ? 1 : h;
    }

    /** By id, oldest first. */
    private final Map<String, Entry> entries;

    private AppliedMessages(Map<String, Entry> entries) {
        this.entries = entries;
    }

    /**
     * Reads a stored window.
     *
     * @param bytes the stored form, or {@code null} for none
     * @return the window
     * @throws MalformedFrameException if the bytes are not a window
     */
    static AppliedMessages decode(byte @Nullable [] bytes) {
        if (bytes == null || bytes.length == 0) {
            return NONE;
        }
        WireReader in = new WireReader(bytes, 0, bytes.length);
        int format = in.byte8();
        if (format != FORMAT && format != FORMAT_WITHOUT_FINGERPRINTS) {
            throw new MalformedFrameException("Unknown format " + format + " of applied message ids");
        }
        int n = in.varInt();
        if (n < 0 || n > in.remaining()) {
            throw new MalformedFrameException("Bad count " + n + " of applied message ids");
        }
        Map<String, Entry> map = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            String id = in.string();
            long at = in.int64();
            long fingerprint = format == FORMAT ? in.int64() : NO_FINGERPRINT;
            byte[] reply = in.bool() ? in.bytes(Integer.MAX_VALUE) : null;
            map.put(id, new Entry(id, at, fingerprint, reply));
        }
        in.expectEnd();
        return new AppliedMessages(Collections.unmodifiableMap(map));
    }

    /**
     * The entry of a message id, unless it is older than the window's age.
     *
     * @param id the message id
     * @param nowMillis the time now (epoch milliseconds)
     * @param maxAgeMillis the window's age
     * @return the entry, or {@code null} when the id was not applied lately
     */
    @Nullable
    public Entry find(String id, long nowMillis, long maxAgeMillis) {
        Entry e = entries.get(id);
        return e == null || e.appliedAtMillis < nowMillis - maxAgeMillis ? null : e;
    }

    /**
     * The window with one more message: entries older than the age and the oldest beyond the count are dropped.
     *
     * @param id the message id
     * @param nowMillis when it is applied
     * @param reply its encoded reply, or {@code null}
     * @param maxCount at most this many entries
     * @param maxAgeMillis none older than this
     * @return the new window
     */
    public AppliedMessages plus(String id, long nowMillis, byte @Nullable [] reply, int maxCount, long maxAgeMillis) {
        return plus(id, nowMillis, NO_FINGERPRINT, reply, maxCount, maxAgeMillis);
    }

    /**
     * The window with one more message, with the message's fingerprint; see
     * {@link #plus(String, long, byte[], int, long)}.
     *
     * @param id the message id
     * @param nowMillis when it is applied
     * @param fingerprint the message's fingerprint
     * @param reply its encoded reply, or {@code null}
     * @param maxCount at most this many entries
     * @param maxAgeMillis none older than this
     * @return the new window
     */
    public AppliedMessages plus(
            String id, long nowMillis, long fingerprint, byte @Nullable [] reply, int maxCount, long maxAgeMillis) {
        List<Entry> kept = new ArrayList<>(entries.size() + 1);
        for (Entry e : entries.values()) {
            if (!e.id.equals(id) && e.appliedAtMillis >= nowMillis - maxAgeMillis) {
                kept.add(e);
            }
        }
        kept.add(new Entry(id, nowMillis, fingerprint, reply));
        Map<String, Entry> map = new LinkedHashMap<>();
        for (Entry e : kept.subList(Math.max(0, kept.size() - Math.max(1, maxCount)), kept.size())) {
            map.put(e.id, e);
        }
        return new AppliedMessages(Collections.unmodifiableMap(map));
    }

    /** How many ids the window holds. */
    int size() {
        return entries.size();
    }

    /** The stored form, or {@code null} for the empty window. */
    byte @Nullable [] encode() {
        if (entries.isEmpty()) {
            return null;
        }
        WireWriter out = new WireWriter(64 + entries.size() * 48);
        out.byte8(FORMAT).varInt(entries.size());
        for (Entry e : entries.values()) {
            out.string(e.id).int64(e.appliedAtMillis).int64(e.fingerprint).bool(e.reply != null);
            if (e.reply != null) {
                out.bytes(e.reply);
            }
        }
        return out.toByteArray();
    }
}
