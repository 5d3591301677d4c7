package dev.sharding.store;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends the database sessions that sit in a transaction, holding rows of the store's tables, long after any of the
 * store's own transactions would have ended: those of a client that lost its connection while the database could not
 * hear it (a network cut, a database cut off from every node), whose server keeps them, and their locks, until it
 * hears the socket close, which may be never. The rows of their shards stay held, and no new owner of those shards
 * can write them.
 *
 * <p>PostgreSQL ends such sessions itself: each of the store's transactions sets {@code
 * idle_in_transaction_session_timeout}. H2 has no such setting, so on H2 the store looks every {@link #PERIOD} for
 * sessions idle in a transaction for longer than {@link #idleLimit} that hold a lock on a table of its prefix, and
 * aborts them ({@code ABORT_SESSION}, which needs an administrator, as H2's {@code sa} is). A store transaction never
 * sits idle that long: its deadline is twice the query timeout, after which its own connection is aborted.
 */
final class IdleTransactionSweep {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    /** How often the store looks. */
    static final Duration PERIOD = Duration.ofSeconds(2);

    /** How long the store does not look after a look failed. */
    static final Duration PAUSE_AFTER_FAILURE = Duration.ofSeconds(30);

    private final ConnectionTasks tasks;

    private final Duration idleLimit;

    private final AtomicBoolean running = new AtomicBoolean();

    /** Set once the database is found not to need a sweep (PostgreSQL), or not to allow one. */
    private volatile boolean off;

    /** After a look that failed (the database does not answer), no look before this {@link System#nanoTime()}. */
    private volatile long pausedUntil = System.nanoTime();

    /**
     * Creates the sweep.
     *
     * @param tasks where it runs
     * @param queryTimeout the store's query timeout
     */
    IdleTransactionSweep(ConnectionTasks tasks, Duration queryTimeout) {
        this.tasks = tasks;
        this.idleLimit = idleLimit(queryTimeout);
    }

    /** How long a session may sit idle in a transaction before it counts as abandoned. */
    static Duration idleLimit(Duration queryTimeout) {
        return queryTimeout.multipliedBy(2).plusSeconds(2);
    }

    /** Looks once, on a store thread, unless a look is under way or the database needs none. Never blocks. */
    void sweep() {
        if (off || System.nanoTime() - pausedUntil < 0 || !running.compareAndSet(false, true)) {
            return;
        }
        try {
            tasks.onReader("look for abandoned transactions", ConnectionTasks.Mode.AUTO_COMMIT, (c, dialect) -> {
                        if (!(dialect instanceof H2Dialect)) {
                            off = true; // PostgreSQL ends them itself
                            return 0;
                        }
                        return H2IdleSessions.abortIdle(c, dialect.prefix, idleLimit);
                    })
                    .whenComplete((aborted, failure) -> {
                        running.set(false);
                        if (aborted != null && aborted < 0) {
                            refused();
                            LOG.warn("The store's database user may not end other sessions (ABORT_SESSION needs an"
                                    + " administrator): a transaction abandoned by a client the database could not"
                                    + " hear keeps holding its shards' rows until the database notices it");
                        } else if (failure != null) {
                            // the database does not answer: its transactions are the store's other calls' business
                            pausedUntil = System.nanoTime() + PAUSE_AFTER_FAILURE.toNanos();
                            LOG.debug("Looking for abandoned transactions failed: {}", failure.toString());
                        }
                    });
        } catch (RuntimeException e) {
            running.set(false); // stopping
        }
    }

    /** The database does not let the store end other sessions: stop looking. */
    void refused() {
        off = true;
    }
}
