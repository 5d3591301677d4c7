package dev.sharding.autoconfigure;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * The connections of the embedded H2 file database: a small pool whose new connections are opened in turn with the
 * other processes that share the file ({@link H2FileTakeover}), and which drops its idle connections once one of them
 * is found broken.
 *
 * <p>When the process serving the file stops, every connection of the others to it breaks at once. The store finds
 * one broken, closes it and tries on another ({@code JdbcTransactions.connectionLost}); the idle ones are as dead,
 * so this pool drops every connection opened before the broken one was given back, instead of handing them out one
 * failed attempt after another. Connections to another process's server go straight to it ({@code jdbc:h2:tcp://}),
 * not through {@code AUTO_SERVER}, which implies {@code AUTO_RECONNECT}: that reconnects inside a statement, where
 * nothing orders the processes that race for the file.
 */
final class EmbeddedH2Pool implements DataSource, AutoCloseable {

    private static final org.slf4j.Logger log = LoggerFactory.getLogger(EmbeddedH2Pool.class);

    private final String fileUrl;

    private final String clientOptions;

    /** Whether the file is open in this process, whose new connections are then embedded ones. */
    private volatile boolean serving;

    private final Properties credentials = new Properties();

    private final H2FileTakeover takeover;

    private final java.sql.Driver driver;

    private final Semaphore permits;

    private final ConcurrentLinkedDeque<Pooled> idle = new ConcurrentLinkedDeque<>();

    /** Bumped when a broken connection comes back: idle connections of an older generation are dropped. */
    private final AtomicLong generation = new AtomicLong();

    private final AtomicBoolean closed = new AtomicBoolean();

    private volatile int loginTimeoutSeconds;

    /**
     * A pool for one file database.
     *
     * @param fileUrl its URL ({@code jdbc:h2:file:...;AUTO_SERVER=TRUE...}), to open the file in this process
     * @param clientOptions the settings of a connection to another process's server ({@code ;WRITE_DELAY=0})
     * @param takeover orders the opening of the file among the processes that share it
     * @param maxConnections how many connections may be borrowed at once
     * @param loginTimeoutSeconds how long a borrower waits for one of them to come back
     */
    EmbeddedH2Pool(
            String fileUrl,
            String clientOptions,
            H2FileTakeover takeover,
            int maxConnections,
            int loginTimeoutSeconds) {
        this.fileUrl = fileUrl;
        this.clientOptions = clientOptions;
        this.takeover = takeover;
        this.credentials.setProperty("user", "sa");
        this.credentials.setProperty("password", "");
        this.driver = org.h2.Driver.load();
        this.permits = new Semaphore(maxConnections);
        this.loginTimeoutSeconds = loginTimeoutSeconds;
    }

    @Override
    public Connection getConnection() throws SQLException {
        if (closed.get()) {
            throw new SQLException("The embedded H2 database is closed", "08003");
        }
        try {
            if (!permits.tryAcquire(loginTimeoutSeconds, TimeUnit.SECONDS)) {
                throw new SQLTransientConnectionException(
                        "No connection of the embedded H2 database came back within " + loginTimeoutSeconds + " s",
                        "08001");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLTransientConnectionException("Interrupted waiting for a connection", "08001", e);
        }
        try {
            return lease(take());
        } catch (SQLException | RuntimeException | Error e) {
            permits.release();
            throw e;
        }
    }

    /** An idle connection of the current generation, or a new one. */
    private Pooled take() throws SQLException {
        long current = generation.get();
        for (Pooled p; (p = idle.pollFirst()) != null; ) {
            if (p.generation == current && !isClosed(p.physical)) {
                return p;
            }
            closeQuietly(p.physical);
        }
        if (serving) {
            // the file is open in this process: another session of it, with no lock file to look at
            Connection c = connect(fileUrl, "(this node serves the file)", System.nanoTime());
            if (servesFile(c)) {
                return new Pooled(c, current);
            }
            closeQuietly(c);
            serving = false;
        }
        long start = System.nanoTime();
        H2FileTakeover.Turn turn = takeover.await();
        try {
            if (turn.kind() == H2FileTakeover.Kind.SERVED) {
                // straight to the server, not through AUTO_SERVER: that would first try to open the file (H2's slow
                // lock check, when the server has just gone) and reconnect inside statements (AUTO_SERVER implies
                // AUTO_RECONNECT), where nothing orders the nodes
                String tcp = "jdbc:h2:tcp://" + turn.server() + "/" + turn.key() + clientOptions;
                Pooled p = new Pooled(connect(tcp, turn.kind(), start), current);
                H2EngineWarmUp.startOnce(driver, credentials); // this node may have to take the file over one day
                return p;
            }
            Connection c = connect(fileUrl, turn.kind(), start);
            if (servesFile(c)) {
                serving = true;
                takeover.serving();
                // H2 registers its shutdown hook again each time it opens the file: taken away again, so that
                // the file closes when the store does (H2ShutdownHook)
                H2ShutdownHook.detach();
                log.info(
                        "Opened the embedded H2 database in {} ms; this node serves it to the others",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            }
            return new Pooled(c, current);
        } finally {
            if (turn.kind() == H2FileTakeover.Kind.CLAIMED) {
                takeover.release();
            }
        }
    }

    /** A new physical connection; how long its turn and its connection took is logged at debug level. */
    private Connection connect(String target, Object why, long start) throws SQLException {
        long connectAt = System.nanoTime();
        try {
            Connection c = driver.connect(target, credentials);
            if (c == null) {
                throw new SQLException("The H2 driver does not accept " + target);
            }
            if (log.isDebugEnabled()) {
                log.debug(
                        "New connection to {} after {} ms waiting for the turn ({}) and {} ms connecting",
                        target,
                        TimeUnit.NANOSECONDS.toMillis(connectAt - start),
                        why,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - connectAt));
            }
            return c;
        } catch (SQLException | RuntimeException e) {
            log.debug(
                    "A new connection to {} failed after {} ms waiting for the turn ({}) and {} ms connecting: {}",
                    target,
                    TimeUnit.NANOSECONDS.toMillis(connectAt - start),
                    why,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - connectAt),
                    e.toString());
            throw e;
        }
    }

    /** Hands a connection out behind a proxy whose {@code close()} gives it back. */
    private Connection lease(Pooled p) {
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, new Handle(p));
    }

    /** Takes a connection back: kept when it is sound, dropped with every older one when it broke. */
    private void giveBack(Pooled p) {
        try {
            boolean broken = isClosed(p.physical);
            if (!broken && !closed.get() && p.generation == generation.get()) {
                try {
                    if (!p.physical.getAutoCommit()) {
                        p.physical.rollback();
                        p.physical.setAutoCommit(true);
                    }
                    idle.addFirst(p);
                    return;
                } catch (SQLException | RuntimeException e) {
                    broken = true;
                }
            }
            if (broken) {
                long g = generation.incrementAndGet();
                log.debug("A broken connection of the embedded H2 database came back; generation {} begins", g);
            }
            closeQuietly(p.physical);
        } finally {
            permits.release();
        }
    }

    /**
     * Closes every idle connection (those borrowed close when they come back) and, when this process serves the file,
     * the database itself. H2 keeps a database open while any session uses it, the other processes' too, and this
     * store takes H2's shutdown hook away ({@link H2ShutdownHook}): without {@code SHUTDOWN} the process would exit
     * with the file open, leaving a lock file that names a server gone, which costs the next process to open the file
     * H2's check of a left-over lock (two seconds and more). Closed here, the lock file goes with it, the other
     * processes' connections break at once, and one of them serves the file within about the time it takes to open.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            for (Pooled p; (p = idle.pollFirst()) != null; ) {
                if (servesFile(p.physical)) {
                    shutDown(p.physical);
                }
                closeQuietly(p.physical);
            }
        }
    }

    /** Whether a connection is one of the process that has the file open (H2's embedded session), not a client's. */
    private static boolean servesFile(Connection c) {
        try {
            return !c.isClosed()
                    && c.unwrap(org.h2.jdbc.JdbcConnection.class).getSession() instanceof org.h2.engine.SessionLocal;
        } catch (SQLException | RuntimeException | LinkageError e) {
            return false;
        }
    }

    private static void shutDown(Connection c) {
        try (java.sql.Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
            log.info("Closed the embedded H2 database, which this node served to the others");
        } catch (SQLException | RuntimeException e) {
            log.debug("Could not close the embedded H2 database: {}", e.toString());
        }
    }

    private static boolean isClosed(Connection c) {
        try {
            return c.isClosed();
        } catch (SQLException | RuntimeException e) {
            return true;
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            log.debug("Could not close a connection of the embedded H2 database: {}", e.toString());
        }
    }

    /** A physical connection and the generation it was opened in. */
    private record Pooled(Connection physical, long generation) {}

    /**
     * A borrowed connection: {@code close()} gives it back once, {@code unwrap(Connection.class)} is the physical
     * connection (the store closes that to discard a broken one), and everything else goes to the physical one.
     */
    private final class Handle implements InvocationHandler {

        private final Pooled pooled;

        private final AtomicBoolean returned = new AtomicBoolean();

        Handle(Pooled pooled) {
            this.pooled = pooled;
        }

        @Override
        public @Nullable Object invoke(Object proxy, Method method, Object @Nullable [] args) throws Throwable {
            switch (method.getName()) {
                case "close":
                    if (returned.compareAndSet(false, true)) {
                        giveBack(pooled);
                    }
                    return null;
                case "isClosed":
                    return returned.get() || pooled.physical.isClosed();
                case "unwrap":
                    if (args != null && args[0] == Connection.class) {
                        return pooled.physical;
                    }
                    break;
                case "isWrapperFor":
                    if (args != null && args[0] == Connection.class) {
                        return true;
                    }
                    break;
                case "equals":
                    return args != null && proxy == args[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "toString":
                    return "EmbeddedH2Pool connection " + pooled.physical;
                default:
                    break;
            }
            if (returned.get()) {
                throw new SQLException("The connection was given back to the pool", "08003");
            }
            try {
                return method.invoke(pooled.physical, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("The embedded H2 database has one user");
    }

    @Override
    public @Nullable PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(@Nullable PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {
        this.loginTimeoutSeconds = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeoutSeconds;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("Not a wrapper for " + iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }
}
