package dev.sharding.store;

import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Recognizes the failures that the time limits of a {@link JdbcShardingStore} cause, so that messages name the
 * setting ({@code sharding.store.query-timeout}) rather than leave a bare driver error to be decoded.
 */
final class StoreTimeouts {

    /** The name of the setting, as users write it. */
    static final String SETTING = "sharding.store.query-timeout";

    private StoreTimeouts() {}

    /**
     * What a failure says, in words that name the time limit when the failure came from one.
     *
     * @param failure the failure
     * @param limit the limit the database was given
     * @param queryTimeout the store's query timeout, from which the limit comes
     * @return the failure's text, preceded by an explanation when it is a timeout
     */
    static String reason(@Nullable Throwable failure, Duration limit, Duration queryTimeout) {
        if (failure instanceof ShardEpochs.ShardRowBusyException busy) {
            return String.valueOf(busy.getMessage()); // did not wait: no time limit to name
        }
        String text = String.valueOf(failure);
        @Nullable String kind = kind(failure);
        return kind == null ? text : kind + " (" + limit(limit, queryTimeout) + "): " + text;
    }

    /**
     * Where a time limit comes from, for messages.
     *
     * @param limit the limit
     * @param queryTimeout the store's query timeout
     * @return "sharding.store.query-timeout allows 10s", or for a shorter limit (a lease request's) its value and the
     *     setting's
     */
    static String limit(Duration limit, Duration queryTimeout) {
        return limit.equals(queryTimeout)
                ? SETTING + " allows " + format(limit)
                : "the limit is " + format(limit) + ", half the lease, at most " + SETTING + "=" + format(queryTimeout);
    }

    /**
     * Which time limit a failure hit, if any.
     *
     * @param failure the failure
     * @return a description of what took too long, or {@code null} when the failure is not a timeout
     */
    static @Nullable String kind(@Nullable Throwable failure) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (@Nullable Throwable t = failure; t != null && seen.put(t, true) == null; t = t.getCause()) {
            if (t instanceof ConnectionSource.NoConnectionException) {
                return "no connection came from the pool in time (the database does not answer, or the pool has none"
                        + " free)";
            }
            if (t instanceof SQLException sql) {
                for (@Nullable SQLException x = sql;
                        x != null && (x == sql || seen.put(x, true) == null);
                        x = x.getNextException()) {
                    @Nullable String kind = kind(x);
                    if (kind != null) {
                        return kind;
                    }
                }
            }
            if (t instanceof StoreConnection.AbortedConnectionException) {
                return "the database did not answer at all for twice the query timeout, so the store aborted the"
                        + " connection";
            }
            if (t instanceof SocketTimeoutException) {
                return "the database did not answer at all for twice the query timeout";
            }
        }
        return null;
    }

    /**
     * The pause before a call that failed on its connection tries another: 50 ms, doubling up to half a second.
     *
     * @param attempt the failed attempts so far, at least 1
     * @param deadline when the call must be done ({@link System#nanoTime()})
     * @return the pause in nanoseconds, or -1 when it would end past the deadline: no retry
     */
    static long retryPauseNanos(int attempt, long deadline) {
        long pause = TimeUnit.MILLISECONDS.toNanos(Math.min(500, 50L << Math.min(attempt - 1, 4)));
        return System.nanoTime() + pause >= deadline ? -1 : pause;
    }

    /**
     * Whether a failure says that the database did not answer at all (a connection aborted at its deadline, none
     * from the pool in time, a driver's network timeout), as opposed to one that answered with an error or a lock
     * timeout.
     *
     * @param failure the failure
     * @return whether the database did not answer
     */
    static boolean unanswered(@Nullable Throwable failure) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (@Nullable Throwable t = failure; t != null && seen.put(t, true) == null; t = t.getCause()) {
            if (t instanceof StoreConnection.AbortedConnectionException
                    || t instanceof ConnectionSource.NoConnectionException
                    || t instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static @Nullable String kind(SQLException e) {
        String state = String.valueOf(e.getSQLState());
        return switch (state) {
            // PostgreSQL lock_timeout
            case "55P03" ->
                "a row lock was held by another transaction for longer than allowed"
                        + " (a node frozen or cut off in a transaction?)";
            // PostgreSQL idle_in_transaction_session_timeout
            case "25P03" ->
                "this node paused within a transaction for longer than allowed, so the database ended"
                        + " its session and rolled the transaction back";
            // statement_timeout or a cancel after Statement.setQueryTimeout (PostgreSQL), QUERY_TIMEOUT (H2)
            case "57014" -> "a statement ran, or waited for a row lock, for longer than allowed";
            default ->
                e instanceof SQLTimeoutException || state.startsWith("HYT")
                        // H2 reports a lock wait that timed out as HYT00 (error 50200)
                        ? (e.getErrorCode() == 50200
                                ? "a row lock was held by another transaction for longer than allowed"
                                        + " (a node frozen or cut off in a transaction?)"
                                : "a statement ran, or waited for a row lock, for longer than allowed")
                        : null;
        };
    }

    /**
     * A duration as a user would write it in a property: "10s", "250ms", "1500ms".
     *
     * @param d the duration
     * @return its text
     */
    static String format(Duration d) {
        long millis = d.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }

    /**
     * A timeout in whole seconds for {@link java.sql.Statement#setQueryTimeout}, rounded up.
     *
     * @param d the timeout
     * @return at least 1
     */
    static int seconds(Duration d) {
        long s = (d.toMillis() + 999) / 1000;
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, s));
    }

    /**
     * A timeout in milliseconds for the database and the driver.
     *
     * @param d the timeout
     * @return at least 1
     */
    static int millis(Duration d) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, d.toMillis()));
    }
}
