package dev.sharding;

import java.util.function.UnaryOperator;

/**
 * The durable state of one entity. Changes made while a message is handled are written to the store when the
 * handler finishes, and the reply (and the entity's next message) waits until the write is durable; a failed write
 * fails the message's ask and the state goes back to what is stored. The state moves with its shard on a handoff and
 * is read back from the store after a crash.
 *
 * <p>Used only from the entity's own handlers, one message at a time.
 *
 * @param <S> the state type, encoded like messages (it is declared to the codec automatically)
 */
public interface EntityState<S> {

    /**
     * The current state: the last one set, or the stored one, or the initial value for an entity never seen.
     *
     * @return the state
     */
    S get();

    /**
     * Replaces the state; it is stored when the current message's handler finishes.
     *
     * @param state the new state, not null (use {@link #clear()} to remove it)
     */
    void set(S state);

    /**
     * Changes the state with a function of the current one.
     *
     * @param change the function
     */
    void update(UnaryOperator<S> change);

    /**
     * Removes the stored state; {@link #get()} returns the initial value again.
     */
    void clear();
}
