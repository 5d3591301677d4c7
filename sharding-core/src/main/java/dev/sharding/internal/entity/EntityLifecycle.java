package dev.sharding.internal.entity;

import java.util.EnumSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The phases of one entity's life (one {@link EntityCell}), and the moves it may make; the cell's state is a
 * {@link CellLife}, which carries what each state holds and has one of these phases:
 *
 * <pre>
 *   NEW ──▶ LOADING ──▶ ACTIVE ──▶ PASSIVATED ──▶ RETIRED
 *    ▲  ╲      │          │  ▲         │  ▲          │
 *    │   ╲─────┼──────────┘  └─────────┤  └──────────┘ (a message raced in)
 *    └─────────┘ (read failed)         │ (state to read again, or creation failed: LOADING, NEW)
 *                         ▼            │
 *                      STOPPED ◀───────┘ (and from NEW)
 * </pre>
 *
 * <ul>
 * <li>{@code NEW}: no instance yet ({@link CellLife#NEW}), or its creation or state read failed (tried again after a
 * wait, {@link CellLife.BackingOff}; a stored state its class cannot decode fails the message at once).</li>
 * <li>{@code LOADING}: the entity's stored state is being read before the instance is created; the mailbox
 * waits.</li>
 * <li>{@code ACTIVE}: the instance lives and takes messages.</li>
 * <li>{@code PASSIVATED}: the instance was destroyed to save memory; its state stays with the cell, and the next
 * message creates a new instance.</li>
 * <li>{@code RETIRED}: a passivated cell with an empty mailbox left its shard; a message offered now goes to a new
 * cell. A message that raced in just before makes it {@code PASSIVATED} again.</li>
 * <li>{@code STOPPED}: the shard stopped (handoff, drop, node stop), also while the state was being read; later
 * messages fail. Final.</li>
 * </ul>
 *
 * <p>Only the thread draining the cell's mailbox moves it. An illegal move is a bug: it throws when assertions are
 * on (as in every test run) and is logged otherwise.
 */
enum EntityLifecycle {

    /** No instance yet. */
    NEW,

    /** Reading the stored state before the instance is created. */
    LOADING,

    /** The instance lives. */
    ACTIVE,

    /** The instance was passivated. */
    PASSIVATED,

    /** Left the shard's map. */
    RETIRED,

    /** Stopped for good. */
    STOPPED;

    private static final Logger log = LoggerFactory.getLogger(EntityLifecycle.class);

    private static final boolean STRICT = EntityLifecycle.class.desiredAssertionStatus();

    private static final Set<EntityLifecycle> FROM_NEW = EnumSet.of(LOADING, ACTIVE, STOPPED);

    private static final Set<EntityLifecycle> FROM_LOADING = EnumSet.of(ACTIVE, NEW, STOPPED);

    private static final Set<EntityLifecycle> FROM_ACTIVE = EnumSet.of(PASSIVATED, STOPPED);

    private static final Set<EntityLifecycle> FROM_PASSIVATED = EnumSet.of(LOADING, ACTIVE, NEW, RETIRED, STOPPED);

    private static final Set<EntityLifecycle> FROM_RETIRED = EnumSet.of(PASSIVATED);

    private static final Set<EntityLifecycle> FROM_STOPPED = EnumSet.of(STOPPED);

    /**
     * The states this one may move to.
     *
     * @return the legal next states
     */
    Set<EntityLifecycle> next() {
        return switch (this) {
            case NEW -> FROM_NEW;
            case LOADING -> FROM_LOADING;
            case ACTIVE -> FROM_ACTIVE;
            case PASSIVATED -> FROM_PASSIVATED;
            case RETIRED -> FROM_RETIRED;
            case STOPPED -> FROM_STOPPED;
        };
    }

    /**
     * Checks a move from this state.
     *
     * @param to the next state
     * @param entity the entity, for the message
     * @return {@code to}
     * @throws IllegalStateException for an illegal move when assertions are on
     */
    EntityLifecycle moveTo(EntityLifecycle to, Object entity) {
        if (!next().contains(to)) {
            String message = entity + " cannot move from " + this + " to " + to + " (legal: " + next() + ")";
            if (STRICT) {
                throw new IllegalStateException(message);
            }
            log.warn(message);
        }
        return to;
    }
}
