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
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:lost-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        h2.setUser("sa");
        AtomicBoolean broken = new AtomicBoolean();
        DataSource source = breaking(h2, broken);
        try (JdbcShardingStore store =
                new JdbcShardingStore(source, JdbcStoreSettings.defaults().withQueryTimeout(QUERY_TIMEOUT))) {
            store.createSchema();
            write(store, "before");

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
            Awaitility.await("a write stored once connections work again")
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(50))
                    .ignoreExceptions()
                    .until(() -> {
                        write(store, "after");
                        return true;
                    });
            assertThat(read(store, "before")).isEqualTo("before");
            assertThat(read(store, "after")).isEqualTo("after");
            assertThat(store.read("lost", "first-lost").get(10, TimeUnit.SECONDS))
                    .isEmpty();
            assertThat(store.read("lost", "right-after").get(10, TimeUnit.SECONDS))
                    .isEmpty();
        }
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
