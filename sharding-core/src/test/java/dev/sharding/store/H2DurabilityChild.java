package dev.sharding.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.h2.engine.SessionRemote;
import org.h2.jdbc.JdbcConnection;

/**
 * A node for {@link H2KillDurabilityTest}, run in a JVM of its own: opens the database at the URL it is given
 * (through a connection pool, as an application would), writes entity states through a {@link JdbcShardingStore}
 * as fast as it can with a few writes in flight, and prints {@code READY embedded} (it opened the file) or
 * {@code READY remote} (it talks to another process's server) once the schema exists, {@code ACK <id>}
 * for every write whose future succeeded and {@code FAIL <id> <reason>} for every one that failed. A line
 * {@code STOP} on standard input (or its end) makes it stop writing, close the store and print {@code DONE}.
 */
public final class H2DurabilityChild {

    private static final int SHARD = 0;

    /** The entity type the children write. */
    public static final String TYPE = "durability";

    static final int IN_FLIGHT = 16;

    private H2DurabilityChild() {}

    /**
     * Runs the node.
     *
     * @param args the JDBC URL, the node's name (the prefix of its entity ids) and, optionally, the store's query
     *     timeout in milliseconds
     * @throws Exception when the node cannot start
     */
    public static void main(String[] args) throws Exception {
        String url = args[0];
        String name = args[1];
        JdbcStoreSettings settings = args.length > 2
                ? JdbcStoreSettings.defaults().withQueryTimeout(java.time.Duration.ofMillis(Long.parseLong(args[2])))
                : JdbcStoreSettings.defaults();
        HikariConfig config = new HikariConfig();
        config.setPoolName("child-" + name);
        config.setJdbcUrl(url);
        config.setUsername("sa");
        config.setPassword("");
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(30_000);
        // without this the pool hands out the connection to the killed owner again and again
        config.setExceptionOverrideClassName(H2BrokenConnectionOverride.class.getName());
        CountDownLatch stop = new CountDownLatch(1);
        Thread stdin = new Thread(
                () -> {
                    try (BufferedReader in =
                            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = in.readLine()) != null && !line.equals("STOP")) {
                            // wait for STOP
                        }
                    } catch (java.io.IOException e) {
                        // end of input: stop too
                    }
                    stop.countDown();
                },
                "stdin");
        stdin.setDaemon(true);
        stdin.start();
        try (HikariDataSource pool = new HikariDataSource(config);
                JdbcShardingStore store = new JdbcShardingStore(pool, settings)) {
            store.createSchema();
            try (Connection c = pool.getConnection()) {
                boolean remote = c.unwrap(JdbcConnection.class).getSession() instanceof SessionRemote;
                System.out.println("READY " + (remote ? "remote" : "embedded"));
            }
            Semaphore inFlight = new Semaphore(IN_FLIGHT);
            long next = 0;
            while (stop.getCount() > 0) {
                if (!inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                String id = name + "-" + next++;
                store.write(TYPE, id, SHARD, 1, id.getBytes(StandardCharsets.UTF_8))
                        .whenComplete((stored, failure) -> {
                            System.out.println(failure == null ? "ACK " + id : "FAIL " + id + " " + failure);
                            inFlight.release();
                        });
            }
            inFlight.tryAcquire(IN_FLIGHT, 30, TimeUnit.SECONDS);
        }
        System.out.println("DONE");
    }
}
