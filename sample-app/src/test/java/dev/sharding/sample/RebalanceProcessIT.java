package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sharding.sample.SampleCluster.Node;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Shards move between processes: two sample-app JVMs host every account, a third joins and receives its fair share
 * at the default rebalance settings; then one node is stopped with SIGTERM while requests keep coming through the
 * others, and not one of them fails.
 */
class RebalanceProcessIT {

    private static final int ACCOUNTS = 100;

    private static final int LOAD_THREADS = 4;

    private SampleCluster cluster;

    private final ExecutorService load = Executors.newFixedThreadPool(LOAD_THREADS);

    @AfterEach
    void stop() {
        load.shutdownNow();
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aJoiningNodeGetsItsShareAndAGracefulStopUnderLoadFailsNoRequest() throws Exception {
        cluster = new SampleCluster("rebalance-it", 3);
        try {
            run();
        } catch (Throwable t) {
            cluster.printLogTails();
            throw t;
        }
    }

    private void run() throws Exception {
        Node n1 = cluster.node(0);
        Node n2 = cluster.node(1);
        Node n3 = cluster.node(2);
        cluster.start(n1);
        cluster.awaitCluster(List.of(n1));
        cluster.start(n2);
        cluster.awaitCluster(List.of(n1, n2));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < ACCOUNTS; i++) {
            ids.add(String.format("rb-acct-%03d", i));
            deposit(i % 2 == 0 ? n1 : n2, ids.get(i));
        }
        int shards = SampleCluster.shardsHostedBy(n1) + SampleCluster.shardsHostedBy(n2);
        int fair = shards / 3;

        // A third node joins: it gets its share at the default rebalance settings.
        long joined = System.nanoTime();
        cluster.start(n3);
        cluster.awaitCluster(List.of(n1, n2, n3));
        long deadline = joined + Duration.ofSeconds(120).toNanos();
        while (SampleCluster.shardsHostedBy(n3) < fair) {
            if (System.nanoTime() > deadline) {
                fail(
                        "%s hosts %d shards 120 s after joining; its fair share of %d is %d",
                        n3, SampleCluster.shardsHostedBy(n3), shards, fair);
            }
            SampleCluster.pause(Duration.ofMillis(100));
        }
        cluster.report(
                "rebalance-times.txt",
                String.format(
                        "Joining node %s hosted %d of %d shards %.1f s after" + " it was started",
                        n3.name, SampleCluster.shardsHostedBy(n3), shards, (System.nanoTime() - joined) / 1e9));
        for (String id : ids) {
            deposit(n3, id);
        }

        // SIGTERM to a node that is not the coordinator while requests go through the other two.
        assertThat(SampleCluster.coordinatorSeenBy(n3)).isEqualTo(n1.name);
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong ok = new AtomicLong();
        Map<String, Integer> failures = new ConcurrentHashMap<>();
        List<Node> through = List.of(n1, n3);
        List<CompletableFuture<Void>> senders = new ArrayList<>();
        for (int t = 0; t < LOAD_THREADS; t++) {
            int thread = t;
            senders.add(CompletableFuture.runAsync(
                    () -> {
                        for (int i = thread; running.get(); i += LOAD_THREADS) {
                            Node via = through.get(i % 2);
                            String id = ids.get(i % ids.size());
                            JsonHttp.Answer a = SampleCluster.HTTP.postJson(
                                    via.url("/accounts/" + id + "/deposit"), "{\"amount\": 1}");
                            if (a.status() == 200) {
                                ok.incrementAndGet();
                            } else {
                                failures.merge(a.status() + " " + a.text(), 1, Integer::sum);
                            }
                        }
                    },
                    load));
        }
        awaitRequests(ok, 200);
        long hostedByLeaver = SampleCluster.shardsHostedBy(n2);
        long stopAt = System.nanoTime();
        Process p = n2.process;
        assertThat(p).isNotNull();
        p.destroy();
        assertThat(p.waitFor(120, TimeUnit.SECONDS))
                .as("%s exits after SIGTERM", n2)
                .isTrue();
        double drained = (System.nanoTime() - stopAt) / 1e9;
        cluster.awaitCluster(List.of(n1, n3));
        awaitRequests(ok, 200);
        running.set(false);
        CompletableFuture.allOf(senders.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        cluster.report(
                "rebalance-times.txt",
                String.format(
                        "SIGTERM of %s (hosting %d shards): exited after %.1f s;"
                                + " %d requests through the other nodes succeeded, %d failed",
                        n2.name,
                        hostedByLeaver,
                        drained,
                        ok.get(),
                        failures.values().stream().mapToInt(Integer::intValue).sum()));
        assertThat(new TreeMap<>(failures))
                .as("failed requests during the graceful stop")
                .isEmpty();
        assertThat(p.exitValue()).as("exit status of %s after SIGTERM", n2.name).isIn(0, 143);
        for (String id : ids) {
            deposit(n1, id);
        }

        // SIGTERM to the first node: the coordinator, and the one serving the embedded database file. It hands off
        // its shards (taking their new epochs in that database) and closes the file only once it has left.
        cluster.stop(n1);
        String log = Files.readString(n1.log);
        assertThat(log)
                .as("log of %s, stopped gracefully", n1.name)
                .doesNotContain("Database is already closed")
                .doesNotContain(" ERROR ");
        cluster.awaitCluster(List.of(n3));
        for (String id : ids) {
            deposit(n3, id);
        }
    }

    private static void deposit(Node via, String id) {
        JsonHttp.Answer a = SampleCluster.HTTP.postJson(via.url("/accounts/" + id + "/deposit"), "{\"amount\": 1}");
        assertThat(a.status())
                .as("deposit into %s through %s: %s", id, via.name, a)
                .isEqualTo(200);
    }

    /** Waits until at least {@code more} further requests have succeeded. */
    private static void awaitRequests(AtomicLong ok, long more) {
        long target = ok.get() + more;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (ok.get() < target) {
            if (System.nanoTime() > deadline) {
                throw new UncheckedIOException(new java.io.IOException("Only " + ok.get() + " requests succeeded"));
            }
            SampleCluster.pause(Duration.ofMillis(20));
        }
    }
}
