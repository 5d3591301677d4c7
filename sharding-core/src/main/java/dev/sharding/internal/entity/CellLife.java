package dev.sharding.internal.entity;

import org.jspecify.annotations.Nullable;

/**
 * Where one entity ({@link EntityCell}) is in its life, with what that state holds: whether an active instance asked
 * to be passivated, the wait of a start that keeps failing. The instance itself is a field of the cell, so that an
 * active entity costs no object for its life. Its {@link EntityLifecycle phase}
 * says which moves are legal ({@link #move}); a move within a phase changes only what the state holds.
 *
 * <p>Only the thread draining the cell's mailbox (or a completion that then resumes it) moves it; any thread reads
 * it.
 */
sealed interface CellLife {

    /** No instance yet, and no failed start. */
    CellLife NEW = Plain.NEW;

    /** The instance (held by the cell beside its life) lives and takes messages. */
    CellLife ACTIVE = Plain.ACTIVE;

    /** Active, and the instance asked to be passivated once its current message is done. */
    CellLife PASSIVATION_REQUESTED = Plain.PASSIVATION_REQUESTED;

    /** The instance was passivated; its stored state stays with the cell. */
    CellLife PASSIVATED = Plain.PASSIVATED;

    /** A passivated cell with an empty mailbox left its shard. */
    CellLife RETIRED = Plain.RETIRED;

    /** Stopped for good. */
    CellLife STOPPED = Plain.STOPPED;

    /**
     * The phase of this state.
     *
     * @return the phase, whose table says the legal moves
     */
    EntityLifecycle phase();

    /**
     * The wait of a start that keeps failing, while the entity has not started yet.
     *
     * @return the wait, or {@code null}
     */
    default @Nullable StartBackoff backoff() {
        return null;
    }

    /**
     * Checks a move between two states: between phases, as {@link EntityLifecycle#moveTo} allows; within one, only to
     * a state that holds other data.
     *
     * @param from the state now
     * @param to the next state
     * @param entity the entity, for the message
     * @return {@code to}
     * @throws IllegalStateException for an illegal move when assertions are on
     */
    static CellLife move(CellLife from, CellLife to, Object entity) {
        if (from.phase() != to.phase() || from == to) {
            from.phase().moveTo(to.phase(), entity);
        }
        return to;
    }

    /** The states that hold nothing. */
    enum Plain implements CellLife {
        NEW(EntityLifecycle.NEW),
        ACTIVE(EntityLifecycle.ACTIVE),
        PASSIVATION_REQUESTED(EntityLifecycle.ACTIVE),
        PASSIVATED(EntityLifecycle.PASSIVATED),
        RETIRED(EntityLifecycle.RETIRED),
        STOPPED(EntityLifecycle.STOPPED);

        private final EntityLifecycle phase;

        Plain(EntityLifecycle phase) {
            this.phase = phase;
        }

        @Override
        public EntityLifecycle phase() {
            return phase;
        }
    }

    /**
     * The entity's stored state is being read before its instance is created; the mailbox waits.
     *
     * @param backoff the wait of the earlier failed starts, or {@code null} at the first
     */
    record Loading(@Nullable StartBackoff backoff) implements CellLife {

        @Override
        public EntityLifecycle phase() {
            return EntityLifecycle.LOADING;
        }
    }

    /**
     * The entity's start failed (its creation threw, or its state could not be read): it waits to try again.
     *
     * @param backoff the wait, which counts the messages offered meanwhile
     */
    record BackingOff(StartBackoff backoff) implements CellLife {

        @Override
        public EntityLifecycle phase() {
            return EntityLifecycle.NEW;
        }
    }
}
