package dev.sharding.boot.test.store;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A {@link DataSource} in front of a real one that can be told to fail or hang ({@link #inject}) or to hold every
 * caller of {@link #getConnection()} until released ({@link #hold()}), so that tests can make a store's transactions
 * fail, make operations queue up behind a transaction that has not started yet, or make a connection wait for a
 * database that does not answer until it is aborted.
 */
public final class FaultyDataSource implements DataSource {

    private final DataSource target;

    private volatile @Nullable StoreFault fault;

    private volatile @Nullable CountDownLatch gate;

    private final AtomicInteger waiting = new AtomicInteger();

    private final AtomicInteger aborted = new AtomicInteger();

    private final AtomicInteger hanging = new AtomicInteger();

    /** The calls that fail under {@link StoreFault#CONNECTIONS_BREAK}: every statement. */
    private static final java.util.Set<String> STATEMENTS =
            java.util.Set.of("createStatement", "prepareStatement", "prepareCall");

    private final AtomicInteger broken = new AtomicInteger();

    private final AtomicInteger lostCommits = new AtomicInteger();

    /** The calls that wait under {@link StoreFault#HANGS}: every one that would ask the database something. */
    private static final java.util.Set<String> HANGING_CALLS = java.util.Set.of(
            "commit", "rollback", "createStatement", "prepareStatement", "prepareCall", "setAutoCommit", "isValid");

    /**
     * Wraps a data source; no fault at first.
     *
     * @param target the real data source
     */
    public FaultyDataSource(DataSource target) {
        this.target = target;
    }

    /**
     * Makes the database fail from now on, or heals it.
     *
     * @param fault the failure, or {@code null} for none
     */
    public void inject(@Nullable StoreFault fault) {
        this.fault = fault;
    }

    /**
     * Makes every later {@link #getConnection()} wait until {@link #release()}.
     */
    public void hold() {
        gate = new CountDownLatch(1);
    }

    /**
     * Lets the held callers and all later ones through.
     */
    public void release() {
        CountDownLatch g = gate;
        gate = null;
        if (g != null) {
            g.countDown();
        }
    }

    /**
     * How many callers are waiting in {@link #getConnection()} now.
     *
     * @return the count
     */
    public int waiting() {
        return waiting.get();
    }

    /**
     * How many connections handed out were aborted ({@link Connection#abort}).
     *
     * @return the count
     */
    public int aborted() {
        return aborted.get();
    }

    /**
     * How many statements failed under {@link StoreFault#CONNECTIONS_BREAK}.
     *
     * @return the count
     */
    public int broken() {
        return broken.get();
    }

    /**
     * How many commits failed under {@link StoreFault#COMMIT_FAILS} or {@link StoreFault#COMMIT_LOST_AFTER_APPLYING}.
     *
     * @return the count
     */
    public int lostCommits() {
        return lostCommits.get();
    }

    /**
     * How many calls wait now under {@link StoreFault#HANGS}.
     *
     * @return the count
     */
    public int hanging() {
        return hanging.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        CountDownLatch g = gate;
        if (g != null) {
            waiting.incrementAndGet();
            try {
                if (!g.await(30, TimeUnit.SECONDS)) {
                    throw new SQLTransientConnectionException("Held by the test for 30 s and never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLTransientConnectionException("Interrupted while held by the test", e);
            } finally {
                waiting.decrementAndGet();
            }
        }
        if (fault == StoreFault.UNREACHABLE) {
            throw new SQLTransientConnectionException("Injected fault: the database is unreachable", "08001");
        }
        return withFaultyCommit(target.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("Only getConnection() is faulty");
    }

    private Connection withFaultyCommit(Connection connection) {
        CountDownLatch abort = new CountDownLatch(1);
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    String name = method.getName();
                    if (name.equals("commit") && fault == StoreFault.COMMIT_FAILS) {
                        lostCommits.incrementAndGet();
                        throw new SQLException("Injected fault: the connection was lost during commit", "08006");
                    }
                    if (name.equals("commit") && fault == StoreFault.COMMIT_LOST_AFTER_APPLYING) {
                        lostCommits.incrementAndGet();
                        connection.commit();
                        throw new SQLException(
                                "Injected fault: the connection was lost after the commit was sent", "08006");
                    }
                    if (fault == StoreFault.CONNECTIONS_BREAK && STATEMENTS.contains(name)) {
                        broken.incrementAndGet();
                        throw new SQLNonTransientConnectionException(
                                "Injected fault: the connection broke (the server restarted or moved)", "08006");
                    }
                    if (name.equals("abort")) {
                        aborted.incrementAndGet();
                        abort.countDown();
                    }
                    if (fault == StoreFault.HANGS && HANGING_CALLS.contains(name)) {
                        hanging.incrementAndGet();
                        try {
                            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                            while (fault == StoreFault.HANGS && System.nanoTime() < until) {
                                if (abort.await(5, TimeUnit.MILLISECONDS)) {
                                    throw new SQLException(
                                            "Injected fault: the connection was aborted while it"
                                                    + " waited for the database",
                                            "08006");
                                }
                            }
                        } finally {
                            hanging.decrementAndGet();
                        }
                    }
                    if (abort.getCount() == 0 && !name.equals("close") && !name.equals("abort")) {
                        throw new SQLException("Injected fault: the connection was aborted", "08003");
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        return target.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || target.isWrapperFor(type);
    }
}
