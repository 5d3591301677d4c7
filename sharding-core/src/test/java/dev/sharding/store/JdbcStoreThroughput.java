package dev.sharding.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sharding.spi.NewEvent;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures write throughput through a {@link JdbcShardingStore}: concurrent writers, each waiting for its write to
 * be durable before the next (as an entity waits before it replies), small states, ids of their own (each write a
 * new entity, or each writer rewriting a few entities). Prints writes per second, latency and the average batch;
 * asserts nothing. Beside the state writes, it measures appends of one event (with one tag) each to the event journal
 * from as many writers and entities, which take the journal's global offset counter in every transaction: the
 * difference is what the counter and the event rows cost. Not a test: run its {@code main} with the test class path,
 * arguments {@code [h2|postgresql|both] [writers] [seconds] [all|journal]} ({@code journal}: only the state writes
 * rewriting entities and the appends, back to back).
 */
public final class JdbcStoreThroughput {

    private JdbcStoreThroughput() {}

    /**
     * Runs the measurements.
     *
     * @param args database, writers, seconds per run
     * @throws Exception when a database cannot be started
     */
    public static void main(String[] args) throws Exception {
        String which = args.length > 0 ? args[0] : "both";
        int writers = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        boolean journalOnly = args.length > 3 && args[3].equals("journal");
        if (!which.equals("postgresql")) {
            Path folder = Files.createTempDirectory("store-throughput");
            try (HikariDataSource pool = pool(
                    "jdbc:h2:file:" + folder.resolve("sharding")
                            + ";AUTO_SERVER=TRUE;AUTO_RECONNECT=TRUE;WRITE_DELAY=0",
                    "sa")) {
                runAll("H2 2.4.240 file, WRITE_DELAY=0", pool, writers, seconds, journalOnly);
            }
        }
        if (!which.equals("h2")) {
            // zonky turns synchronous_commit off by default; measure real durable commits
            try (EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                            .setServerConfig("synchronous_commit", "on")
                            .setServerConfig("fsync", "on")
                            .start();
                    HikariDataSource pool = pool(postgres.getJdbcUrl("postgres", "postgres"), "postgres")) {
                try (Connection c = pool.getConnection();
                        ResultSet rs = c.createStatement()
                                .executeQuery(
                                        "SELECT version(), current_setting('synchronous_commit'), current_setting('fsync')")) {
                    rs.next();
                    System.out.printf(
                            "%s; synchronous_commit=%s fsync=%s%n",
                            rs.getString(1).split(" on ")[0], rs.getString(2), rs.getString(3));
                }
                runAll("PostgreSQL", pool, writers, seconds, journalOnly);
            }
        }
    }

    private static HikariDataSource pool(String url, String user) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setMaximumPoolSize(8);
        return new HikariDataSource(config);
    }

    private static void runAll(String database, HikariDataSource pool, int writers, int seconds, boolean journalOnly)
            throws Exception {
        for (int maxBatch : new int[] {JdbcStoreSettings.DEFAULT_MAX_BATCH_SIZE, 1}) {
            for (Workload workload : Workload.values()) {
                if (journalOnly && (workload == Workload.NEW_ENTITIES || maxBatch == 1)) {
                    continue;
                }
                JdbcStoreSettings settings = JdbcStoreSettings.defaults().withMaxBatchSize(maxBatch);
                try (JdbcShardingStore store = new JdbcShardingStore(pool, settings)) {
                    store.createSchema();
                    run(database, List.of(store), maxBatch, workload, writers, seconds);
                }
            }
        }
        if (journalOnly) {
            // four nodes on one database, a writer thread and transactions each: their appends take turns at the
            // journal's offset counter from its update to their commit, their state writes do not
            for (Workload workload : List.of(Workload.REWRITES, Workload.APPENDS)) {
                List<JdbcShardingStore> nodes = new ArrayList<>();
                try {
                    for (int n = 0; n < 4; n++) {
                        nodes.add(new JdbcShardingStore(pool, JdbcStoreSettings.defaults()));
                    }
                    nodes.get(0).createSchema();
                    run(
                            database + ", 4 nodes",
                            nodes,
                            JdbcStoreSettings.DEFAULT_MAX_BATCH_SIZE,
                            workload,
                            writers,
                            seconds);
                } finally {
                    nodes.forEach(JdbcShardingStore::close);
                }
            }
        }
    }

    /** What each writer does, again and again. */
    private enum Workload {
        /** Writes the state of a new entity each time. */
        NEW_ENTITIES("each write a new entity"),
        /** Rewrites the states of 20 entities of its own in turn. */
        REWRITES("rewriting 20 entities each"),
        /** Appends one event with one tag to each of 20 entities of its own in turn. */
        APPENDS("appending one tagged event to 20 entities each");

        final String description;

        Workload(String description) {
            this.description = description;
        }
    }

    private static void run(
            String database, List<JdbcShardingStore> nodes, int maxBatch, Workload workload, int writers, int seconds)
            throws Exception {
        String type = "bench-" + System.nanoTime();
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong writes = new AtomicLong();
        long[][] latencies = new long[writers][];
        CountDownLatch done = new CountDownLatch(writers);
        byte[] state = new byte[32];
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            JdbcShardingStore store = nodes.get(w % nodes.size());
            Thread thread = new Thread(
                    () -> {
                        long[] mine = new long[1 << 16];
                        long[] sequenceNrs = new long[20];
                        List<NewEvent> event = List.of(new NewEvent("deposit", 1, state, Set.of(type)));
                        int n = 0;
                        for (long i = 0; running.get(); i++) {
                            String id = writer + "-" + (workload == Workload.NEW_ENTITIES ? i : i % 20);
                            long start = System.nanoTime();
                            if (workload == Workload.APPENDS) {
                                int e = (int) (i % 20);
                                sequenceNrs[e] = store.appendEvents(type, id, 0, 1, sequenceNrs[e], event, null, null)
                                        .join();
                            } else {
                                store.write(type, id, 0, 1, state).join();
                            }
                            if (measuring.get()) {
                                writes.incrementAndGet();
                                if (n < mine.length) {
                                    mine[n++] = System.nanoTime() - start;
                                }
                            }
                        }
                        latencies[writer] = Arrays.copyOf(mine, n);
                        done.countDown();
                    },
                    "writer-" + w);
            threads.add(thread);
            thread.start();
        }
        Thread.sleep(2000);
        long[] before = totals(nodes);
        measuring.set(true);
        long start = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        measuring.set(false);
        long elapsed = System.nanoTime() - start;
        long[] after = totals(nodes);
        running.set(false);
        done.await();
        long[] all =
                Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
        long batches = after[0] - before[0];
        long operations = after[1] - before[1];
        System.out.printf(
                "%s, %d writers, max batch %d, %s: %,.0f %s/s, average batch %.1f, largest %d,"
                        + " latency p50 %.2f ms p99 %.2f ms%n",
                database,
                writers,
                maxBatch,
                workload.description,
                writes.get() * 1e9 / elapsed,
                workload == Workload.APPENDS ? "appends" : "writes",
                batches == 0 ? 0 : (double) operations / batches,
                after[2],
                percentile(all, 0.50),
                percentile(all, 0.99));
    }

    /** Batches, operations and the largest batch, over every node. */
    private static long[] totals(List<JdbcShardingStore> nodes) {
        long[] totals = new long[3];
        for (JdbcShardingStore node : nodes) {
            JdbcStoreStatistics s = node.statistics();
            totals[0] += s.batches();
            totals[1] += s.operations();
            totals[2] = Math.max(totals[2], s.largestBatch());
        }
        return totals;
    }

    private static double percentile(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, sorted.length * p)] / 1e6;
    }
}
