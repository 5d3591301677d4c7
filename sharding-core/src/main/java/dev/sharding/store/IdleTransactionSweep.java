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
 * idle_in_transaction_session_timeout} to the query timeout. H2 has no such setting, so on H2 the store looks every
 * {@link #PERIOD} for sessions idle in a transaction that hold a lock on a table of its prefix, and aborts them
 * ({@code ABORT_SESSION}, which needs an administrator, as H2's {@code sa} is) when either
 * <ul>
 * <li>they have been idle for longer than {@link #idleLimit}: a store transaction never sits idle that long, its
 * deadline being twice the query timeout, after which its own connection is aborted; or</li>
 * <li>another session waits for one of their locks and they have been idle for longer than {@link #blockingLimit},
 * half the query timeout: a node that is alive but slow to the database (a degraded link, a starved or paused JVM)
 * must not hold up the rows every node needs, the journal's offset counter above all, which every event append of
 * the cluster takes. A healthy node's transaction is idle between its statements for milliseconds; one aborted
 * here is rolled back, and its writer does the batch again or reports it failed, never as stored.</li>
 * </ul>
 */
final class IdleTransactionSweep {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    /** How often the store looks. */
    static final Duration PERIOD = Duration.ofSeconds(2);

    /** How long the store does not look after a look failed. */
    static final Duration PAUSE_AFTER_FAILURE = Duration.ofSeconds(30);

    private final ConnectionTasks tasks;

    private final Duration idleLimit;

    private final Duration blockingLimit;

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
        this.blockingLimit = blockingLimit(queryTimeout);
    }

    /** How long a session may sit idle in a transaction before it counts as abandoned. */
    static Duration idleLimit(Duration queryTimeout) {
        return queryTimeout.multipliedBy(2).plusSeconds(2);
    }

    /** How long a session may sit idle in a transaction while another waits for one of its locks. */
    static Duration blockingLimit(Duration queryTimeout) {
        return queryTimeout.dividedBy(2);
    }

    /**
     * How often the store looks while a write transaction has been running that long: a transaction waiting for a
     * lock whose holder sits idle gets it within the blocking limit plus this and the look's own time, before its
     * lock timeout (the query timeout).
     */
    static Duration blockedCallCheck(Duration queryTimeout) {
        return queryTimeout.dividedBy(5);
    }

    /**
     * Looks once, on a store thread, unless a look is under way or the database needs none. Never blocks. Runs every
     * {@link #PERIOD}, and every {@link #blockedCallCheck} while a write transaction has run that long.
     */
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
                        return H2IdleSessions.abortIdle(c, dialect.prefix, idleLimit, blockingLimit);
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
