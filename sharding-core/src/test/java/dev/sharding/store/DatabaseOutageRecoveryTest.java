package dev.sharding.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database that stops answering without closing its sockets, under a stream of writes and lease requests, for
 * longer than the store's deadlines, and then answers again ({@link BlackHoleProxy} between the pool and the
 * database). Connections the outage caught stay silent afterwards, as TCP connections whose retransmissions backed off
 * do: the store must not wait for them, wherever they are (its own calls, or the pool validating one it hands out).
 * Writes and lease requests must succeed again within a bound derived from the settings, and no acknowledged write may
 * be lost. Each database costs about 10 s.
 */
class DatabaseOutageRecoveryTest {

    private static final Duration QUERY_TIMEOUT = Duration.ofMillis(500);

    private static final int WRITERS = 4;

    @TempDir
    Path folder;

    /** H2's own server, over TCP, as {@code jdbc:h2:tcp://} users and the embedded server's other nodes use it. */
    @Test
    void anH2ServerThatStopsAnsweringServesWritesAndLeasesAgainSoonAfterItAnswers() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Server h2 = Server.createTcpServer(
                        "-tcpPort", String.valueOf(port), "-ifNotExists", "-baseDir", folder.toString())
                .start();
        try (BlackHoleProxy proxy = new BlackHoleProxy(new InetSocketAddress("127.0.0.1", port));
                HikariDataSource pool = TestPools.of("jdbc:h2:tcp://127.0.0.1:" + proxy.port() + "/outage", "sa")) {
            outage(proxy, pool);
        } finally {
            h2.stop();
        }
    }

    /** PostgreSQL, whose driver has a network timeout. */
    @Test
    void aPostgreSqlThatStopsAnsweringServesWritesAndLeasesAgainSoonAfterItAnswers() throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                        .setServerConfig("fsync", "on")
                        .start();
                BlackHoleProxy proxy = new BlackHoleProxy(new InetSocketAddress("127.0.0.1", postgres.getPort()));
                HikariDataSource pool =
                        TestPools.of("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/postgres", "postgres")) {
            outage(proxy, pool);
        }
    }

    private static Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.start();
        return t;
    }

    private void outage(BlackHoleProxy proxy, HikariDataSource pool) throws Exception {
        JdbcStoreSettings settings = JdbcStoreSettings.defaults().withQueryTimeout(QUERY_TIMEOUT);
        // the writer's pause between failed transactions, at most a second, then its deadline for the first
        Duration bound = Duration.ofSeconds(1).plus(QUERY_TIMEOUT.multipliedBy(2));
        Map<String, String> acknowledged = new ConcurrentHashMap<>();
        AtomicLong writesOk = new AtomicLong();
        AtomicLong writesFailed = new AtomicLong();
        AtomicLong leasesOk = new AtomicLong();
        AtomicLong leasesFailed = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);
        // from the first failed write until the database answers again, no write may be tried on it
        AtomicBoolean failureSeen = new AtomicBoolean();
        AtomicBoolean resumed = new AtomicBoolean();
        Queue<String> triedOnASilentDatabase = new ConcurrentLinkedQueue<>();
        List<Thread> load = new ArrayList<>();
        try (JdbcShardingStore store = new JdbcShardingStore(pool, settings)) {
            store.createSchema();
            AtomicInteger ids = new AtomicInteger();
            for (int w = 0; w < WRITERS; w++) {
                load.add(start("outage-writer-" + w, () -> {
                    while (running.get()) {
                        String id = "e" + ids.incrementAndGet();
                        boolean known = failureSeen.get() && !resumed.get();
                        try {
                            store.write("outage", id, 1, 1, id.getBytes(StandardCharsets.UTF_8))
                                    .get(1, TimeUnit.MINUTES);
                            acknowledged.put(id, id);
                            writesOk.incrementAndGet();
                        } catch (ExecutionException e) {
                            String message = String.valueOf(e.getCause().getMessage());
                            if (known
                                    && !resumed.get()
                                    && !message.contains("could not begin")
                                    && !message.contains("could not apply")) {
                                triedOnASilentDatabase.add(message);
                            }
                            failureSeen.set(true);
                            writesFailed.incrementAndGet();
                        } catch (TimeoutException e) {
                            writesFailed.incrementAndGet();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }));
            }
            load.add(start("outage-lease", () -> {
                while (running.get()) {
                    try {
                        store.acquireCoordinatorLease("outage", "a", "node a", Duration.ofSeconds(2))
                                .get(1, TimeUnit.MINUTES);
                        leasesOk.incrementAndGet();
                    } catch (ExecutionException | TimeoutException e) {
                        leasesFailed.incrementAndGet();
                    } catch (InterruptedException e) {
                        return;
                    }
                    // a coordinator renews a few times a second
                    LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
                }
            }));
            await("writes and lease requests before the outage")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> writesOk.get() > 200 && leasesOk.get() > 3);

            proxy.blackHole();
            long failedBefore = writesFailed.get();
            long leasesFailedBefore = leasesFailed.get();
            // failures take a deadline each: a few per writer is an outage longer than the deadlines
            await("writes and lease requests failing in the outage")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> writesFailed.get() - failedBefore >= 3L * WRITERS
                            && leasesFailed.get() - leasesFailedBefore >= 3);

            assertThat(triedOnASilentDatabase)
                    .as("writes tried on the database after a write found it silent (each waits a deadline,"
                            + " and its entity's next messages with it)")
                    .isEmpty();
            resumed.set(true);
            proxy.resume();
            long writesAtResume = writesOk.get();
            long leasesAtResume = leasesOk.get();
            await("a write acknowledged after the database answers again")
                    .atMost(bound)
                    .until(() -> writesOk.get() > writesAtResume);
            await("a lease request granted after the database answers again")
                    .atMost(bound)
                    .until(() -> leasesOk.get() > leasesAtResume);
            running.set(false);
            for (Thread t : load) {
                t.join();
            }
            for (Map.Entry<String, String> e : acknowledged.entrySet()) {
                assertThat(store.read("outage", e.getKey())
                                .get(1, TimeUnit.MINUTES)
                                .map(s -> new String(s.state(), StandardCharsets.UTF_8)))
                        .as("acknowledged write of %s", e.getKey())
                        .hasValue(e.getValue());
            }
        } finally {
            running.set(false);
            for (Thread t : load) {
                t.join();
            }
        }
    }
}
