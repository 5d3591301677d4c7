package dev.sharding.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLNonTransientConnectionException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * A database whose every connection breaks at once (an H2 server's sessions closed under its clients, or a server
 * that refuses them): the write that finds it so is tried on other connections until its deadline and then fails;
 * from then on the writer asks the database before it tries a write again, and a write sent right after that failure
 * fails at once, unapplied, rather than wait a deadline of its own. Once connections work again, writes do.
 */
class LostConnectionTest {

    private static final Duration QUERY_TIMEOUT = Duration.ofMillis(250);

    @Test
    void aWriteThatFoundNoWorkingConnectionByItsDeadlineMakesTheNextFailAtOnceUntilTheDatabaseAnswers()
            throws Exception {
        DataSource h2 = inMemoryH2();
        AtomicBoolean broken = new AtomicBoolean();
        DataSource source = breaking(h2, broken);
        try (JdbcShardingStore store =
                new JdbcShardingStore(source, JdbcStoreSettings.defaults().withQueryTimeout(QUERY_TIMEOUT))) {
            setUp(store);

            broken.set(true);
            assertThatThrownBy(() -> write(store, "first-lost"))
                    .isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("nothing of its batch of 1 operations was applied");
            // sent as soon as the caller hears of the failure: the writer must not try it on a broken database
            assertThatThrownBy(() -> write(store, "right-after"))
                    .isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("could not begin")
                    .hasMessageContaining("the database does not answer");

            broken.set(false);
            writeOnceStored(store, "after", "a write stored once connections work again");
            assertThat(read(store, "before")).isEqualTo("before");
            assertThat(read(store, "after")).isEqualTo("after");
            assertThat(store.read("lost", "first-lost").get(10, TimeUnit.SECONDS))
                    .isEmpty();
            assertThat(store.read("lost", "right-after").get(10, TimeUnit.SECONDS))
                    .isEmpty();
        }
    }

    /**
     * The database stops answering right after a commit: the writer's release of its connection (which asks the
     * database) gets no answer and is aborted at the deadline. The writer must then ask the database before it takes
     * a write again: a write sent after that abort fails at once, unapplied, rather than wait a deadline for a
     * connection of its own.
     */
    @Test
    void aReleaseOfTheWritersConnectionThatGotNoAnswerMakesTheNextWriteFailAtOnce() throws Exception {
        DataSource h2 = inMemoryH2();
        Silence silence = new Silence();
        try (JdbcShardingStore store = new JdbcShardingStore(
                silence.around(h2), JdbcStoreSettings.defaults().withQueryTimeout(QUERY_TIMEOUT))) {
            setUp(store);

            silence.afterNextCommit();
            write(store, "last-answered"); // committed; the database goes silent before the writer lets go
            assertThat(silence.releaseAborted.await(30, TimeUnit.SECONDS))
                    .as("the release aborted at its deadline")
                    .isTrue();
            assertThatThrownBy(() -> write(store, "after-the-release"))
                    .isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("could not begin")
                    .hasMessageContaining("the database does not answer");

            silence.end();
            writeOnceStored(store, "answered-again", "a write stored once the database answers again");
            assertThat(read(store, "last-answered")).isEqualTo("last-answered");
            assertThat(store.read("lost", "after-the-release").get(10, TimeUnit.SECONDS))
                    .isEmpty();
        }
    }

    /**
     * A database that goes silent after a commit: new connections are not given until it ends, and a connection
     * set back to auto-commit waits for an answer until it is aborted.
     */
    private static final class Silence {

        private volatile boolean armed;

        private volatile boolean silent;

        private final CountDownLatch ended = new CountDownLatch(1);

        final CountDownLatch releaseAborted = new CountDownLatch(1);

        void afterNextCommit() {
            armed = true;
        }

        void end() {
            silent = false;
            ended.countDown();
        }

        DataSource around(DataSource target) {
            return (DataSource) Proxy.newProxyInstance(
                    DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                        if (method.getName().equals("getConnection")) {
                            if (silent) {
                                ended.await(); // the store's own deadline gives up on it
                            }
                            return connection((Connection) invoke(method, target, args));
                        }
                        return invoke(method, target, args);
                    });
        }

        private Connection connection(Connection real) {
            CountDownLatch aborted = new CountDownLatch(1);
            return (Connection) Proxy.newProxyInstance(
                    Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        switch (method.getName()) {
                            case "commit" -> {
                                invoke(method, real, args);
                                if (armed) {
                                    armed = false;
                                    silent = true;
                                }
                                return null;
                            }
                            case "setAutoCommit" -> {
                                if (silent && Boolean.TRUE.equals(args[0])) {
                                    aborted.await();
                                    releaseAborted.countDown();
                                    throw new SQLNonTransientConnectionException(
                                            "Connection is broken", "90067", 90067);
                                }
                                return invoke(method, real, args);
                            }
                            case "abort" -> {
                                aborted.countDown();
                                return invoke(method, real, args);
                            }
                            default -> {
                                return invoke(method, real, args);
                            }
                        }
                    });
        }
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static DataSource inMemoryH2() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:lost-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        h2.setUser("sa");
        return h2;
    }

    /**
     * Creates the tables and stores a first write, however long a loaded machine takes to give the pool's first
     * connection (the short query timeout bounds that wait too).
     */
    private static void setUp(JdbcShardingStore store) {
        Awaitility.await("the tables created")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> {
                    store.createSchema();
                    return true;
                });
        writeOnceStored(store, "before", "a first write stored");
    }

    /** Writes until the write is stored (a write failed at once while the store has not seen the database answer). */
    private static void writeOnceStored(JdbcShardingStore store, String id, String what) {
        Awaitility.await(what)
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> {
                    write(store, id);
                    return true;
                });
    }

    private static void write(JdbcShardingStore store, String id) throws Exception {
        store.write("lost", id, 1, 1, id.getBytes(StandardCharsets.UTF_8)).get(30, TimeUnit.SECONDS);
    }

    private static String read(JdbcShardingStore store, String id) throws Exception {
        return store.read("lost", id)
                .get(10, TimeUnit.SECONDS)
                .map(s -> new String(s.state(), StandardCharsets.UTF_8))
                .orElseThrow();
    }

    /** The database's connections, or, while broken, ones that fail every call as H2's closed session does. */
    private static DataSource breaking(DataSource target, AtomicBoolean broken) {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && broken.get()) {
                        return brokenConnection();
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static Connection brokenConnection() {
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "isClosed":
                            return true;
                        case "close":
                        case "abort":
                            return null;
                        case "unwrap":
                            return proxy;
                        case "toString":
                            return "broken connection";
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        case "equals":
                            return proxy == args[0];
                        default:
                            throw new SQLNonTransientConnectionException(
                                    "Connection is broken: \"session closed\"", "90067", 90067);
                    }
                });
    }
}
