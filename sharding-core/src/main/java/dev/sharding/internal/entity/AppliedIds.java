package dev.sharding.internal.entity;

import dev.sharding.AppliedMessageWindow;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ids of the messages one entity applied lately, with their recorded replies ({@link AppliedMessages}): as stored
 * (read with the entity's state), decoded once a message with an id needs them, and the fingerprint of the identified
 * message being handled, recorded with its id.
 *
 * <p>Used only by the thread draining the entity's mailbox, or by a completion that then resumes it.
 */
final class AppliedIds {

    private static final Logger log = LoggerFactory.getLogger(AppliedIds.class);

    /** What the entity recorded lately for a message id ({@link #recordedReply}). */
    sealed interface Recorded {

        /** The id was not applied lately: the message is handled. */
        Recorded NOT_APPLIED = new NotApplied();

        /** The id was applied lately to another message (one that encodes differently): nothing is applied. */
        Recorded KEY_REUSED = new KeyReused();
    }

    /** The id was not applied lately. */
    record NotApplied() implements Recorded {}

    /** The id was applied lately to another message. */
    record KeyReused() implements Recorded {}

    /**
     * The id was applied lately to this message, which was answered with this reply.
     *
     * @param value the decoded reply, {@code null} for a handler that returned nothing
     */
    record Replied(@Nullable Object value) implements Recorded {}

    private final EntityCell cell;

    private final EntityServices services;

    /** The ids as stored; read with the state. */
    private byte @Nullable [] stored;

    /** {@link #stored} decoded, once a message with an id needed it. */
    private @Nullable AppliedMessages decoded;

    /**
     * The fingerprint of the identified message being handled ({@link AppliedMessages#fingerprint}), recorded with its
     * id; set before its handler runs.
     */
    private long fingerprint = AppliedMessages.NO_FINGERPRINT;

    AppliedIds(EntityCell cell, EntityServices services) {
        this.cell = cell;
        this.services = services;
    }

    /** The ids as stored, or {@code null} for none. */
    byte @Nullable [] stored() {
        return stored;
    }

    /** The ids as stored now (read, carried, kept, or forgotten with {@code null}). */
    void set(byte @Nullable [] bytes) {
        stored = bytes;
        decoded = null;
    }

    /**
     * The reply recorded for a message id the entity applied lately, if any.
     *
     * @param storeMillis the time on the store's clock
     * @return what was recorded: nothing, another message, or the reply to this one
     */
    Recorded recordedReply(String messageId, long fingerprint, long storeMillis) {
        AppliedMessageWindow window = services.appliedMessages();
        AppliedMessages.Entry entry =
                decoded().find(messageId, storeMillis, window.maxAge().toMillis());
        if (entry == null) {
            return Recorded.NOT_APPLIED;
        }
        if (!entry.matches(fingerprint)) {
            return Recorded.KEY_REUSED;
        }
        byte[] reply = entry.reply();
        return new Replied(reply == null ? null : services.codec().decode(reply, 0, reply.length));
    }

    /**
     * Computes the fingerprint of an identified message about to be handled, and keeps it for its record.
     *
     * @param message the message, without its id
     * @return the fingerprint, or {@link AppliedMessages#NO_FINGERPRINT} when the codec cannot encode it
     */
    long fingerprint(Object message) {
        long f;
        try {
            f = AppliedMessages.fingerprint(services.codec().encode(message));
        } catch (RuntimeException e) {
            f = AppliedMessages.NO_FINGERPRINT; // refused by the codec later, or local only: no check
        }
        fingerprint = f;
        return f;
    }

    /**
     * The ids with the message being handled added, with its encoded reply, within the type's window.
     *
     * @param storeMillis the time on the store's clock
     */
    AppliedMessages plus(String messageId, byte @Nullable [] reply, long storeMillis) {
        AppliedMessageWindow window = services.appliedMessages();
        return decoded()
                .plus(
                        messageId,
                        storeMillis,
                        fingerprint,
                        reply,
                        window.maxCount(),
                        window.maxAge().toMillis());
    }

    /** Ids written with the state, durable now: they are the entity's. */
    void written(AppliedMessages next, byte @Nullable [] bytes) {
        stored = bytes;
        decoded = next;
    }

    private AppliedMessages decoded() {
        AppliedMessages a = decoded;
        if (a == null) {
            try {
                a = AppliedMessages.decode(stored);
            } catch (RuntimeException e) {
                // unreadable ids are dropped, not fatal: the state itself is intact
                log.warn(
                        "Stored ids of applied messages of [{}/{}] cannot be read and are dropped: {}",
                        cell.typeName(),
                        cell.entityId(),
                        e.toString());
                a = AppliedMessages.NONE;
            }
            decoded = a;
        }
        return a;
    }
}
