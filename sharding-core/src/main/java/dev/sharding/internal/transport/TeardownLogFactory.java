package dev.sharding.internal.transport;

import java.util.Locale;
import org.jgroups.logging.CustomLogFactory;
import org.jgroups.logging.Log;
import org.jgroups.logging.LogFactory;
import org.jgroups.logging.Slf4jLogImpl;
import org.jspecify.annotations.Nullable;

/**
 * JGroups' loggers over SLF4J, except that a socket torn down by a peer that crashed or left (broken pipe, connection
 * reset, socket closed) is logged as the ordinary event it is: a failed send to such a peer at WARN, a failed
 * graceful close at DEBUG, instead of ERROR. The membership change that follows is what matters, and the node logs it.
 *
 * <p>A TCP connection's receiver that finds its input stream closed under it ({@code failed handling message: Stream
 * closed}, a WARN in JGroups) is logged at DEBUG too: that stream is closed only by this node, when the peer said
 * goodbye (its graceful close), when this node stops, or when a connection is reaped or replaced, never by a fault of
 * the peer or the network (a peer that crashed ends the stream with a socket error or end of stream, which JGroups
 * does not log). Every other failure to handle a message stays a WARN.
 *
 * <p>Installed by the transport unless the application has set a JGroups log factory of its own.
 */
final class TeardownLogFactory implements CustomLogFactory {

    private static final String[] TEARDOWN = {
        "broken pipe", "connection reset", "socket closed", "socket is closed", "connection refused", "stream closed"
    };

    private TeardownLogFactory() {}

    /**
     * Makes JGroups use this factory when it would log through SLF4J anyway: not when it has a factory of the
     * application's, nor when it logs through Log4j 2 or the JDK.
     */
    static synchronized void install() {
        if (LogFactory.getCustomLogFactory() == null && "slf4j".equals(LogFactory.loggerType())) {
            LogFactory.setCustomLogFactory(new TeardownLogFactory());
        }
    }

    @Override
    public Log getLog(Class<?> clazz) {
        return new TeardownAwareLog(clazz.getName());
    }

    @Override
    public Log getLog(String category) {
        return new TeardownAwareLog(category);
    }

    /** Whether a message with these arguments reports a socket the peer has closed. */
    static boolean isTeardown(@Nullable String format, Object @Nullable ... args) {
        String lower = text(format, args);
        if (!lower.contains("fail")) {
            return false;
        }
        for (String sign : TEARDOWN) {
            if (lower.contains(sign)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a warning says that a connection's receiver found its input stream closed by this node: an orderly
     * close (see the class comment), not a failure.
     */
    static boolean isLocalClose(@Nullable String format, Object @Nullable ... args) {
        String text = text(format, args);
        return text.contains("failed handling message") && text.contains(LOCAL_CLOSE);
    }

    /** What {@link java.io.BufferedInputStream} and its kin say when read after this side closed them. */
    private static final String LOCAL_CLOSE = "stream closed";

    private static String text(@Nullable String format, Object @Nullable ... args) {
        StringBuilder text = new StringBuilder(String.valueOf(format));
        if (args != null) {
            for (Object arg : args) {
                text.append(' ').append(arg instanceof Throwable t ? t.getMessage() : arg);
            }
        }
        return text.toString().toLowerCase(Locale.ROOT);
    }

    /** A JGroups log that lowers socket teardown errors, and warnings of a stream this node closed. */
    static final class TeardownAwareLog extends Slf4jLogImpl {

        TeardownAwareLog(String category) {
            super(category);
        }

        @Override
        public void error(String format, Object... args) {
            if (!isTeardown(format, args)) {
                super.error(format, args);
            } else if (format.contains("graceful close")) {
                debug(format, args);
            } else {
                warn(format, args);
            }
        }

        @Override
        public void warn(String format, Object... args) {
            if (isLocalClose(format, args)) {
                debug(format, args);
            } else {
                super.warn(format, args);
            }
        }

        @Override
        public void warn(String msg, Throwable throwable) {
            if (isLocalClose(msg, throwable)) {
                debug(msg, throwable);
            } else {
                super.warn(msg, throwable);
            }
        }

        @Override
        public void error(String msg, Throwable throwable) {
            if (isTeardown(msg, throwable)) {
                warn(msg + ": " + throwable);
            } else {
                super.error(msg, throwable);
            }
        }
    }
}
