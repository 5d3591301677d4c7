package dev.sharding.internal.entity;

import dev.sharding.EntityState;
import dev.sharding.ShardingException;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.ShardingStore;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * One entity's durable state: the value handlers see, and the bytes last stored. Changes mark it dirty; the entity's
 * cell writes it through the store when the handler finishes, and on a failed write the value goes back to the
 * stored one. Confined to the entity's mailbox (one message at a time), so it needs no locks.
 *
 * @param <S> the state type
 */
public final class EntityStateImpl<S> implements EntityState<S>, HeldState {

    private static final byte[] EMPTY = new byte[0];

    private final Class<S> type;

    private final Supplier<S> initial;

    private final MessageCodec codec;

    /** "type/id", for failure messages. */
    private final String entity;

    private byte @Nullable [] stored;

    private long storedVersion;

    private S current;

    private boolean dirty;

    /** The pending change is a {@link #clear()}: the write deletes the row. */
    private boolean clearing;

    /**
     * The test mode of local round trips: each written value is replaced by what the codec reads back from its bytes,
     * as the next owner of the shard would see it.
     */
    private final boolean readBackWrites;

    EntityStateImpl(
            String entity,
            Class<S> type,
            Supplier<S> initial,
            MessageCodec codec,
            byte @Nullable [] stored,
            long storedVersion,
            boolean readBackWrites) {
        this.entity = entity;
        this.readBackWrites = readBackWrites;
        this.type = type;
        this.initial = initial;
        this.codec = codec;
        this.stored = stored;
        this.storedVersion = storedVersion;
        this.current = storedValue();
    }

    /**
     * The stored value, or the initial one when nothing is stored. A stored value that does not decode fails: it is
     * never replaced by the initial state, which the next write would store over it.
     */
    private S storedValue() {
        if (stored == null || stored.length == 0) {
            // nothing stored, or a row that keeps only the ids of applied messages
            return Objects.requireNonNull(initial.get(), "The initial state must not be null");
        }
        Object value;
        try {
            value = codec.decode(stored, 0, stored.length);
        } catch (RuntimeException e) {
            throw unreadable(e.getMessage());
        }
        if (!type.isInstance(value)) {
            throw unreadable("it is a " + value.getClass().getName());
        }
        return type.cast(value);
    }

    private ShardingException unreadable(@Nullable String why) {
        return new UnreadableStateException("The stored state of [" + entity + "] cannot be read as " + type.getName()
                + ": " + why + ". The entity takes no message until its state class reads it again; the stored "
                + "state is kept, not replaced by the initial state");
    }

    Class<S> type() {
        return type;
    }

    @Override
    public S get() {
        return current;
    }

    @Override
    public void set(S state) {
        current = Objects.requireNonNull(state, "state; use clear() to remove it");
        dirty = true;
    }

    @Override
    public void update(UnaryOperator<S> change) {
        set(change.apply(current));
    }

    @Override
    public void clear() {
        current = Objects.requireNonNull(initial.get(), "The initial state must not be null");
        dirty = true;
        clearing = true;
    }

    @Override
    public boolean isDirty() {
        return dirty;
    }

    /** Forgets the changes made since the last write: the message that made them failed. */
    @Override
    public void discard() {
        current = storedValue();
        dirty = false;
        clearing = false;
    }

    /**
     * Writes the current value (or deletes it after {@link #clear()}) under the shard's epoch, with the ids of the
     * messages the entity applied. On success it becomes the stored value; on failure the value goes back to the
     * stored one.
     *
     * @param applied the ids of applied messages to store with it, or {@code null} for none; a cleared state whose
     *     row keeps ids is written empty rather than deleted
     * @return completes when durable, or failed as the store failed it
     * @throws RuntimeException when the codec cannot encode the value (or, in the test mode of local round trips, read
     *     it back); the value is then back to the stored one, and the store was not called
     */
    @Override
    public CompletableFuture<Void> writeThrough(
            ShardingStore store, String typeName, String entityId, int shardId, long epoch, byte @Nullable [] applied) {
        dirty = false;
        boolean deleting = clearing && applied == null;
        byte[] bytes = EMPTY;
        if (!deleting) {
            try {
                bytes = clearing ? EMPTY : codec.encode(current);
                if (readBackWrites && !clearing) {
                    current = readBack(bytes);
                }
            } catch (RuntimeException e) {
                // not a failure of the store: thrown, so that the caller tells the two apart
                clearing = false;
                current = storedValue();
                throw e;
            }
        }
        clearing = false;
        CompletableFuture<Void> done;
        try {
            if (deleting) {
                done = store.delete(typeName, entityId, shardId, epoch);
            } else {
                byte[] written = bytes;
                done = store.write(typeName, entityId, shardId, epoch, written, applied)
                        .thenAccept(s -> {
                            stored = written.length == 0 ? null : written;
                            storedVersion = s.version();
                        });
            }
        } catch (RuntimeException e) {
            done = CompletableFuture.failedFuture(e);
        }
        return done.whenComplete((v, failure) -> {
            if (failure != null) {
                current = storedValue();
            } else if (deleting) {
                stored = null;
                storedVersion = 0;
            }
        });
    }

    /** The value the codec reads back from written bytes, or a failure saying why the next owner could not. */
    private S readBack(byte[] bytes) {
        Object value;
        try {
            value = codec.decode(bytes, 0, bytes.length);
        } catch (RuntimeException e) {
            throw new UnreadableStateException("The state of [" + entity + "] would not be read back as "
                    + type.getName() + " by the shard's next owner: " + e.getMessage());
        }
        if (!type.isInstance(value)) {
            throw new UnreadableStateException("The state of [" + entity + "] would be read back by the shard's next"
                    + " owner as a " + value.getClass().getName() + ", not a " + type.getName());
        }
        return type.cast(value);
    }

    /** The state as last stored, for the next owner of the shard. */
    @Override
    public byte @Nullable [] storedBytes() {
        return stored;
    }

    @Override
    public long storedVersion() {
        return storedVersion;
    }
}
