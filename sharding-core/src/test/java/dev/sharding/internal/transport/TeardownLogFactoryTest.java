package dev.sharding.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.net.SocketException;
import org.jgroups.logging.Log;
import org.jgroups.logging.LogFactory;
import org.jgroups.protocols.TCP;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A peer that crashed or left tears its sockets down; JGroups reports the failed sends to it at ERROR. The node logs
 * them below ERROR, and keeps every other error an error.
 */
class TeardownLogFactoryTest {

    private final Logger tcp = (Logger) LoggerFactory.getLogger(TCP.class);

    private final ListAppender<ILoggingEvent> events = new ListAppender<>();

    private Level level;

    @BeforeEach
    void capture() {
        level = tcp.getLevel();
        tcp.setLevel(Level.DEBUG);
        events.start();
        tcp.addAppender(events);
        TeardownLogFactory.install();
    }

    @AfterEach
    void release() {
        tcp.detachAppender(events);
        tcp.setLevel(level);
    }

    @Test
    void socketTeardownByAPeerIsNotAnError() {
        Log log = LogFactory.getLog(TCP.class);
        log.error("%s: failed sending graceful close to %s: %s", "a", "b", "Socket closed");
        log.error("JGRP000034: %s: failure sending message to %s: %s", "a", "b", new IOException("Broken pipe"));
        log.error("failed sending data to %s: %s", "b", new SocketException("Connection reset"));
        log.error(
                "JGRP000029: %s: failed sending message to %s (%d bytes): %s, headers: %s",
                "a", "b", 10, new IOException("Broken pipe"), "h");
        log.error("something else failed: %s", new IllegalStateException("bad"));

        assertThat(events.list)
                .extracting(ILoggingEvent::getLevel)
                .containsExactly(Level.DEBUG, Level.WARN, Level.WARN, Level.WARN, Level.ERROR);
    }

    /**
     * JGroups' TCP receiver warns when it reads from a stream this node closed: the peer's graceful close, or this
     * node's own stop. That is an orderly leave, at DEBUG; a message that could not be handled for any other reason is
     * still a WARN. The format and arguments are those of {@code TcpConnection.Receiver} (JGroups 5.5).
     */
    @Test
    void aStreamClosedByAnOrderlyLeaveIsNotAWarningButAFailureToHandleAMessageIs() {
        Log log = LogFactory.getLog(TCP.class);
        log.warn("%s: failed handling message: %s", "a", "Stream closed");
        log.warn("a: failed handling message", new IOException("Stream closed"));
        log.warn("%s: failed handling message: %s", "a", "invalid length 1634952289");
        log.warn("a: failed handling message", new IllegalStateException("bad header"));
        log.warn("%s: something else: %s", "a", "Stream closed");

        assertThat(events.list)
                .extracting(ILoggingEvent::getLevel)
                .containsExactly(Level.DEBUG, Level.DEBUG, Level.WARN, Level.WARN, Level.WARN);
    }
}
